//! Input errors: everything that is wrong with what the user gave us, located precisely.
//!
//! Every error carries a stable `code` (kebab-case, part of the public JSON schema), a human
//! `message`, an optional `help` line, and as much location as is known: the document index in the
//! input stream (0-based, counting every `---` document and every item of a `kind: List`), the
//! object (`Kind/name` or `Kind/namespace/name`), the field path (`spec.template.spec.requirements[1].operator`)
//! and, for syntax errors, the line and column.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One located problem with the input.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputError {
    /// Stable machine-readable code, e.g. `invalid-operator`, `invalid-quantity`, `yaml-syntax`.
    pub code: String,
    /// What is wrong, in one sentence.
    pub message: String,
    /// What would be accepted, when that is short enough to say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// Name of the input (file name, `<stdin>`, ...) when the front end supplied one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// 0-based index of the document in the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<usize>,
    /// `Kind/name` (or `Kind/namespace/name`) of the object the error is about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// Field path inside the object, e.g. `spec.template.spec.requirements[1].operator`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// 1-based line of a syntax error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column of a syntax error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
}

impl InputError {
    pub fn new(code: impl Into<String>, message: impl Into<String>) -> Self {
        InputError {
            code: code.into(),
            message: message.into(),
            help: None,
            source: None,
            document: None,
            object: None,
            path: None,
            line: None,
            column: None,
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn at_document(mut self, document: usize) -> Self {
        self.document = Some(document);
        self
    }

    pub fn object(mut self, object: impl Into<String>) -> Self {
        self.object = Some(object.into());
        self
    }

    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Prefix the field path with `prefix` (`spec` + `template.labels` = `spec.template.labels`).
    pub fn under(mut self, prefix: &str) -> Self {
        self.path = Some(match self.path.take() {
            None => prefix.to_string(),
            Some(p) if p.starts_with('[') => format!("{prefix}{p}"),
            Some(p) => format!("{prefix}.{p}"),
        });
        self
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut loc = Vec::new();
        if let Some(s) = &self.source {
            loc.push(s.clone());
        }
        if let Some(d) = self.document {
            loc.push(format!("document {d}"));
        }
        if let Some(o) = &self.object {
            loc.push(o.clone());
        }
        if let Some(p) = &self.path {
            loc.push(p.clone());
        }
        match (self.line, self.column) {
            (Some(l), Some(c)) => loc.push(format!("line {l}, column {c}")),
            (Some(l), None) => loc.push(format!("line {l}")),
            _ => {}
        }
        if !loc.is_empty() {
            write!(f, "{}: ", loc.join(", "))?;
        }
        write!(f, "{} [{}]", self.message, self.code)?;
        if let Some(h) = &self.help {
            write!(f, " (expected: {h})")?;
        }
        Ok(())
    }
}

impl std::error::Error for InputError {}

/// Several errors at once: decoding and validation collect everything they find.
pub type Errors = Vec<InputError>;
