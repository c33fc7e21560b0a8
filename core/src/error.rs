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
    /// Which stage found the problem; decides the answer's [`ErrorClass`]. Not written per error
    /// on the wire (the failure answer carries the class once).
    #[serde(skip)]
    pub kind: ErrorKind,
}

/// The stage of the pipeline that found an error. Every [`InputError`] carries one; the front
/// ends never guess it from codes or locations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The text is not YAML/JSON, a document is not a Kubernetes object, or it is too large or
    /// too deep to decode.
    Syntax,
    /// The object breaks a rule the API server enforces (OpenAPI/CEL of the CRD, the built-in
    /// types' validation) or one nodecast needs to model it: Kubernetes would not accept it.
    Admission,
    /// The object is accepted but Karpenter's controllers reject it at runtime (NodePool or
    /// EC2NodeClass not Ready, a budget schedule that does not parse).
    Runtime,
    /// The question, not the cluster: an unknown pod or node, a bad `now`, trace, query,
    /// setting or request document. The default: an error a front end builds is about the
    /// request it was given.
    #[default]
    Request,
    /// The instance-type catalog cannot be used.
    Catalog,
    /// The request is beyond one of nodecast's own bounds (pods across the request, events of a
    /// trace, NodePools × instance types): Kubernetes might accept it, nodecast cannot answer it
    /// within bounded time and memory, so it is unusable here rather than invalid.
    Limit,
}

impl ErrorKind {
    /// Lower-case name, for messages and tests.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Syntax => "syntax",
            ErrorKind::Admission => "admission",
            ErrorKind::Runtime => "runtime",
            ErrorKind::Request => "request",
            ErrorKind::Catalog => "catalog",
            ErrorKind::Limit => "limit",
        }
    }

    /// The class of an answer failing with only this kind of error.
    pub const fn class(self) -> ErrorClass {
        match self {
            ErrorKind::Admission | ErrorKind::Runtime => ErrorClass::Invalid,
            ErrorKind::Syntax | ErrorKind::Request | ErrorKind::Catalog | ErrorKind::Limit => ErrorClass::Unusable,
        }
    }
}

/// What a failure means for the user, decided once here for every front end: `invalid` (the
/// input reads, but objects in it break Kubernetes/Karpenter rules: CLI exit 1, Python
/// `ValidationError`) or `unusable` (it cannot be read or the question cannot be asked: CLI exit
/// 2, Python `InputError`). Carried by every failure answer as `errorClass`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorClass {
    /// Every error is a validation error of an input object.
    Invalid,
    /// At least one error is not: syntax, catalog or request.
    Unusable,
}

impl ErrorClass {
    /// The class of a failure with `errors`: `invalid` only when every error is one (an
    /// unreadable file next to an invalid NodePool is still unusable input).
    pub fn of(errors: &[InputError]) -> ErrorClass {
        if !errors.is_empty() && errors.iter().all(|e| e.kind.class() == ErrorClass::Invalid) {
            ErrorClass::Invalid
        } else {
            ErrorClass::Unusable
        }
    }

    /// The wire name: `invalid` or `unusable`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorClass::Invalid => "invalid",
            ErrorClass::Unusable => "unusable",
        }
    }

    /// The CLI's exit code for a failure of this class (README "Exit codes").
    pub const fn exit_code(self) -> u8 {
        match self {
            ErrorClass::Invalid => 1,
            ErrorClass::Unusable => 2,
        }
    }
}

/// Errors one failure answer reports: an input of a million bad rows is told by its first
/// thousand errors and a count of the rest, not by hundreds of MB of messages (README "Bounds").
pub const MAX_REPORTED_ERRORS: usize = 1000;

/// The entry that stands for `more` errors left out after the first [`MAX_REPORTED_ERRORS`].
pub fn more_errors(more: usize, kind: ErrorKind) -> InputError {
    InputError::new("too-many-errors", format!("{more} more errors not shown (the first {MAX_REPORTED_ERRORS} are above)"))
        .help("fix the errors above and run again")
        .kind(kind)
}

/// Keep the first [`MAX_REPORTED_ERRORS`] errors and replace the rest by one `too-many-errors`
/// entry (of the kind of the first one dropped). A list a stage already capped is kept.
pub fn cap_errors(errors: &mut Vec<InputError>) {
    let capped = errors.len() == MAX_REPORTED_ERRORS + 1 && errors.last().is_some_and(|e| e.code == "too-many-errors");
    if errors.len() <= MAX_REPORTED_ERRORS || capped {
        return;
    }
    let more = errors.len() - MAX_REPORTED_ERRORS;
    let kind = errors[MAX_REPORTED_ERRORS].kind;
    errors.truncate(MAX_REPORTED_ERRORS);
    errors.push(more_errors(more, kind));
}

impl InputError {
    /// An error with only its code and message; the builders below add what is known. Its
    /// kind is [`ErrorKind::Request`] until a stage says otherwise.
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
            kind: ErrorKind::default(),
        }
    }

    /// Say which stage found the error (the default is [`ErrorKind::Request`]).
    pub fn kind(mut self, kind: ErrorKind) -> Self {
        self.kind = kind;
        self
    }

    /// What would be accepted (printed as `(expected: ...)`).
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// The 0-based document of the input stream the error is in.
    pub fn at_document(mut self, document: usize) -> Self {
        self.document = Some(document);
        self
    }

    /// The object the error is about, `Kind/name` or `Kind/namespace/name`.
    pub fn object(mut self, object: impl Into<String>) -> Self {
        self.object = Some(object.into());
        self
    }

    /// The field path inside the object, e.g. `spec.template.spec.requirements[1].operator`.
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
        // Inside a `kind: List` (a kubectl export: one document) the path's `items[i]` names
        // the object; "document 0" would only say which List.
        let in_list = self.path.as_deref().is_some_and(|p| p.starts_with("items["));
        if let Some(d) = self.document.filter(|&d| !(in_list && d == 0)) {
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
