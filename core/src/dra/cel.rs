//! The subset of CEL that DRA device selectors use, compiled once per selector and evaluated per
//! device (k8s.io/dynamic-resource-allocation/cel, what Karpenter's allocator calls).
//!
//! Accepted: `device.driver`; `device.attributes["<domain>"].<name>` (or `["<name>"]`);
//! `device.capacity["<domain>"].<name>`; string, integer and boolean literals and lists of them;
//! `quantity("<q>")` and `<capacity>.compareTo(<quantity>)`; `==`, `!=`, `<`, `<=`, `>`, `>=`;
//! `in`; `&&`, `||`, `!`; `has(device.attributes[...].<name>)`; parentheses. Anything else is
//! refused when the object is read, with "CEL expression not supported: ...": a selector nodecast
//! cannot evaluate is never taken to match (or not match) silently.
//!
//! Evaluation follows CEL's rules where they decide a device: a missing attribute, or comparing
//! values of different types, is a runtime error, and `&&` / `||` absorb an error when the other
//! side decides (`false && err` is false, `true || err` is true). Karpenter treats a selector
//! that errors on a device as not matching it (scheduling/dynamicresources/allocator.go,
//! `tryDevice`).

use super::{AttrValue, Device};

/// k8s.io/api resource/v1 `CELSelectorExpressionMaxLength`.
pub const MAX_EXPRESSION_LENGTH: usize = 10 * 1024;

/// A compiled selector expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    Lit(Value),
    List(Vec<Expr>),
    Driver,
    Attribute {
        domain: String,
        name: String,
    },
    Capacity {
        domain: String,
        name: String,
    },
    Has(Box<Expr>),
    Not(Box<Expr>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp(Op, Box<Expr>, Box<Expr>),
    In(Box<Expr>, Box<Expr>),
    /// `a.compareTo(b)` on quantities: -1, 0 or 1.
    CompareTo(Box<Expr>, Box<Expr>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// A runtime value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    /// A semantic version attribute (only equal to itself; nodecast has no `semver()`).
    Version(String),
    /// A quantity in milli-units.
    Quantity(i64),
    List(Vec<Value>),
}

/// A runtime error: the device does not match.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError;

// ---------------------------------------------------------------------------------------------
// Parsing

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Int(i64),
    Sym(&'static str),
}

const SYMBOLS: [&str; 17] = ["==", "!=", "<=", ">=", "&&", "||", "<", ">", "!", "(", ")", "[", "]", ",", ".", "?", ":"];

fn unsupported(what: impl std::fmt::Display) -> String {
    format!("CEL expression not supported: {what}")
}

fn lex(src: &str) -> Result<Vec<Tok>, String> {
    let mut out = Vec::new();
    let b = src.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            let q = c;
            let mut s = String::new();
            i += 1;
            loop {
                match b.get(i) {
                    None => return Err("unterminated string literal".into()),
                    Some(&x) if x == q => break,
                    Some(b'\\') => return Err(unsupported("escape sequences in string literals")),
                    Some(_) => {
                        let ch = src[i..].chars().next().unwrap_or('?');
                        s.push(ch);
                        i += ch.len_utf8();
                    }
                }
            }
            i += 1;
            out.push(Tok::Str(s));
            continue;
        }
        if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i < b.len() && (b[i] == b'.' || b[i] == b'e' || b[i] == b'u' || b[i] == b'x') {
                return Err(unsupported(format!("number literal at offset {start} (only decimal integers)")));
            }
            let n: i64 = src[start..i].parse().map_err(|_| format!("integer literal {} is out of range", &src[start..i]))?;
            out.push(Tok::Int(n));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Tok::Ident(src[start..i].to_string()));
            continue;
        }
        match SYMBOLS.iter().find(|s| src[i..].starts_with(**s)) {
            Some(s) => {
                out.push(Tok::Sym(s));
                i += s.len();
            }
            None => return Err(unsupported(format!("character {:?} at offset {i}", src[i..].chars().next().unwrap_or('?')))),
        }
    }
    Ok(out)
}

/// The generic syntax tree, before it is checked against the subset.
#[derive(Debug, Clone)]
enum Ast {
    Ident(String),
    Str(String),
    Int(i64),
    List(Vec<Ast>),
    Member(Box<Ast>, String),
    Index(Box<Ast>, Box<Ast>),
    Call(Option<Box<Ast>>, String, Vec<Ast>),
    Not(Box<Ast>),
    Bin(&'static str, Box<Ast>, Box<Ast>),
}

struct Parser {
    toks: Vec<Tok>,
    at: usize,
    depth: usize,
}

/// Nesting bound: a hostile expression of 10 KiB of `(` must not exhaust the stack.
const MAX_DEPTH: usize = 64;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }
    fn eat(&mut self, s: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Sym(x)) if *x == s) {
            self.at += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, s: &str) -> Result<(), String> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(format!("expected {s:?} at token {}", self.at + 1))
        }
    }
    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(unsupported(format!("nesting deeper than {MAX_DEPTH}")));
        }
        Ok(())
    }
    fn expr(&mut self) -> Result<Ast, String> {
        self.deeper()?;
        let mut l = self.and()?;
        while self.eat("||") {
            l = Ast::Bin("||", Box::new(l), Box::new(self.and()?));
        }
        if matches!(self.peek(), Some(Tok::Sym("?"))) {
            return Err(unsupported("the conditional operator ?:"));
        }
        self.depth -= 1;
        Ok(l)
    }
    fn and(&mut self) -> Result<Ast, String> {
        let mut l = self.rel()?;
        while self.eat("&&") {
            l = Ast::Bin("&&", Box::new(l), Box::new(self.rel()?));
        }
        Ok(l)
    }
    fn rel(&mut self) -> Result<Ast, String> {
        let l = self.unary()?;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                let r = self.unary()?;
                return Ok(Ast::Bin(op, Box::new(l), Box::new(r)));
            }
        }
        if matches!(self.peek(), Some(Tok::Ident(x)) if x == "in") {
            self.at += 1;
            let r = self.unary()?;
            return Ok(Ast::Bin("in", Box::new(l), Box::new(r)));
        }
        Ok(l)
    }
    fn unary(&mut self) -> Result<Ast, String> {
        if self.eat("!") {
            self.deeper()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(Ast::Not(Box::new(e)));
        }
        self.postfix()
    }
    fn args(&mut self, close: &str) -> Result<Vec<Ast>, String> {
        let mut v = Vec::new();
        if self.eat(close) {
            return Ok(v);
        }
        loop {
            v.push(self.expr()?);
            if self.eat(close) {
                return Ok(v);
            }
            self.expect(",")?;
        }
    }
    fn postfix(&mut self) -> Result<Ast, String> {
        let mut e = self.primary()?;
        loop {
            if self.eat(".") {
                let Some(Tok::Ident(name)) = self.peek().cloned() else {
                    return Err(format!("expected a field name at token {}", self.at + 1));
                };
                self.at += 1;
                if self.eat("(") {
                    let args = self.args(")")?;
                    e = Ast::Call(Some(Box::new(e)), name, args);
                } else {
                    e = Ast::Member(Box::new(e), name);
                }
            } else if self.eat("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Ast::Index(Box::new(e), Box::new(i));
            } else {
                return Ok(e);
            }
        }
    }
    fn primary(&mut self) -> Result<Ast, String> {
        let t = self.peek().cloned().ok_or("unexpected end of expression")?;
        self.at += 1;
        match t {
            Tok::Str(s) => Ok(Ast::Str(s)),
            Tok::Int(n) => Ok(Ast::Int(n)),
            Tok::Ident(id) => {
                if self.eat("(") {
                    let args = self.args(")")?;
                    Ok(Ast::Call(None, id, args))
                } else {
                    Ok(Ast::Ident(id))
                }
            }
            Tok::Sym("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                Ok(e)
            }
            Tok::Sym("[") => Ok(Ast::List(self.args("]")?)),
            Tok::Sym("-") => Err(unsupported("negative numbers")),
            Tok::Sym(s) => Err(format!("unexpected {s:?} at token {}", self.at)),
        }
    }
}

/// `device.attributes["<domain>"]` / `device.capacity["<domain>"]`: (which map, domain).
fn domain_map(a: &Ast) -> Option<(&'static str, String)> {
    let Ast::Index(base, key) = a else { return None };
    let (Ast::Member(dev, field), Ast::Str(domain)) = (base.as_ref(), key.as_ref()) else { return None };
    if !matches!(dev.as_ref(), Ast::Ident(d) if d == "device") {
        return None;
    }
    match field.as_str() {
        "attributes" => Some(("attributes", domain.clone())),
        "capacity" => Some(("capacity", domain.clone())),
        _ => None,
    }
}

fn describe(a: &Ast) -> String {
    match a {
        Ast::Ident(i) => i.clone(),
        Ast::Str(s) => format!("{s:?}"),
        Ast::Int(n) => n.to_string(),
        Ast::List(_) => "a list".into(),
        Ast::Member(b, f) => format!("{}.{f}", describe(b)),
        Ast::Index(b, i) => format!("{}[{}]", describe(b), describe(i)),
        Ast::Call(Some(b), f, _) => format!("{}.{f}(...)", describe(b)),
        Ast::Call(None, f, _) => format!("{f}(...)"),
        Ast::Not(e) => format!("!{}", describe(e)),
        Ast::Bin(op, l, r) => format!("{} {op} {}", describe(l), describe(r)),
    }
}

fn check(a: &Ast) -> Result<Expr, String> {
    Ok(match a {
        Ast::Str(s) => Expr::Lit(Value::Str(s.clone())),
        Ast::Int(n) => Expr::Lit(Value::Int(*n)),
        Ast::Ident(i) if i == "true" => Expr::Lit(Value::Bool(true)),
        Ast::Ident(i) if i == "false" => Expr::Lit(Value::Bool(false)),
        Ast::Ident(i) if i == "device" => {
            return Err(unsupported("`device` on its own (use device.driver, device.attributes or device.capacity)"))
        }
        Ast::Ident(i) => return Err(format!("undeclared reference to {i:?} (the only variable is `device`)")),
        Ast::List(items) => Expr::List(items.iter().map(check).collect::<Result<_, _>>()?),
        Ast::Member(b, f) if f == "driver" && matches!(b.as_ref(), Ast::Ident(d) if d == "device") => Expr::Driver,
        Ast::Member(b, _) | Ast::Index(b, _) if domain_map(b).is_some() => {
            let name = match a {
                Ast::Index(_, k) => match k.as_ref() {
                    Ast::Str(s) => s.clone(),
                    other => return Err(unsupported(format!("index {} (a string literal is needed)", describe(other)))),
                },
                Ast::Member(_, name) => name.clone(),
                _ => String::new(),
            };
            let (map, domain) = domain_map(b).unwrap_or_default();
            if map == "attributes" {
                Expr::Attribute { domain, name }
            } else {
                Expr::Capacity { domain, name }
            }
        }
        Ast::Call(None, f, args) if f == "quantity" => match args.as_slice() {
            [Ast::Str(q)] => {
                let v = crate::quantity::parse_milli(q).map_err(|e| format!("quantity({q:?}): {e}"))?;
                Expr::Lit(Value::Quantity(v))
            }
            _ => return Err(unsupported("quantity() with anything but one string literal")),
        },
        Ast::Call(None, f, args) if f == "has" => match args.as_slice() {
            [inner] => match check(inner)? {
                e @ (Expr::Attribute { .. } | Expr::Capacity { .. }) => Expr::Has(Box::new(e)),
                _ => {
                    return Err(unsupported(format!(
                        "has({}) (only has(device.attributes[...].x) or has(device.capacity[...].x))",
                        describe(inner)
                    )))
                }
            },
            _ => return Err("has() takes one argument".into()),
        },
        Ast::Call(Some(recv), f, args) if f == "compareTo" && args.len() == 1 => {
            Expr::CompareTo(Box::new(check(recv)?), Box::new(check(&args[0])?))
        }
        Ast::Call(_, f, _) => return Err(unsupported(format!("function {f}() in {}", describe(a)))),
        Ast::Member(b, _) | Ast::Index(b, _) if matches!(b.as_ref(), Ast::Ident(i) if i != "device") => {
            let Ast::Ident(i) = b.as_ref() else { return Err(unsupported(describe(a))) };
            return Err(format!("undeclared reference to {i:?} (the only variable is `device`)"));
        }
        Ast::Member(..) | Ast::Index(..) => return Err(unsupported(describe(a))),
        Ast::Not(e) => Expr::Not(Box::new(check(e)?)),
        Ast::Bin(op, l, r) => {
            let (l, r) = (Box::new(check(l)?), Box::new(check(r)?));
            match *op {
                "&&" => Expr::And(l, r),
                "||" => Expr::Or(l, r),
                "in" => Expr::In(l, r),
                "==" => Expr::Cmp(Op::Eq, l, r),
                "!=" => Expr::Cmp(Op::Ne, l, r),
                "<" => Expr::Cmp(Op::Lt, l, r),
                "<=" => Expr::Cmp(Op::Le, l, r),
                ">" => Expr::Cmp(Op::Gt, l, r),
                _ => Expr::Cmp(Op::Ge, l, r),
            }
        }
    })
}

/// Compile a selector: a message (for a located error) when it is not valid CEL, not in the
/// subset, or cannot yield a boolean.
pub fn compile(src: &str) -> Result<Expr, String> {
    if src.trim().is_empty() {
        return Err("empty expression".into());
    }
    if src.len() > MAX_EXPRESSION_LENGTH {
        return Err(format!("expression is {} bytes, more than the {MAX_EXPRESSION_LENGTH} the apiserver accepts", src.len()));
    }
    let mut p = Parser { toks: lex(src)?, at: 0, depth: 0 };
    let ast = p.expr()?;
    if p.at < p.toks.len() {
        return Err(format!("unexpected text after the expression at token {}", p.at + 1));
    }
    let e = check(&ast)?;
    // The apiserver's compile step: a selector must be able to produce a boolean.
    match &e {
        Expr::Lit(Value::Bool(_)) | Expr::Has(_) | Expr::Not(_) | Expr::And(..) | Expr::Or(..) | Expr::Cmp(..) | Expr::In(..) => Ok(e),
        Expr::Attribute { .. } => Ok(e),
        _ => Err("the expression does not evaluate to a bool".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

/// The attribute or capacity key of `domain`/`name` on a device of `driver`: unqualified names
/// belong to the driver's domain (resource/v1 `QualifiedName`).
fn qualified_lookup<'a, T>(items: &'a [(String, T)], driver: &str, domain: &str, name: &str) -> Option<&'a T> {
    items.iter().find_map(|(k, v)| {
        let (d, n) = k.split_once('/').unwrap_or((driver, k.as_str()));
        (d == domain && n == name).then_some(v)
    })
}

fn eval(e: &Expr, d: &Device, driver: &str) -> Result<Value, EvalError> {
    Ok(match e {
        Expr::Lit(v) => v.clone(),
        Expr::List(items) => Value::List(items.iter().map(|i| eval(i, d, driver)).collect::<Result<_, _>>()?),
        Expr::Driver => Value::Str(driver.to_string()),
        Expr::Attribute { domain, name } => match qualified_lookup(&d.attributes, driver, domain, name).ok_or(EvalError)? {
            AttrValue::Str(s) => Value::Str(s.clone()),
            AttrValue::Int(n) => Value::Int(*n),
            AttrValue::Bool(b) => Value::Bool(*b),
            AttrValue::Version(v) => Value::Version(v.clone()),
        },
        Expr::Capacity { domain, name } => Value::Quantity(*qualified_lookup(&d.capacity, driver, domain, name).ok_or(EvalError)?),
        Expr::Has(inner) => Value::Bool(match inner.as_ref() {
            Expr::Attribute { domain, name } => qualified_lookup(&d.attributes, driver, domain, name).is_some(),
            Expr::Capacity { domain, name } => qualified_lookup(&d.capacity, driver, domain, name).is_some(),
            _ => return Err(EvalError),
        }),
        Expr::Not(x) => match eval(x, d, driver)? {
            Value::Bool(b) => Value::Bool(!b),
            _ => return Err(EvalError),
        },
        Expr::And(l, r) => match (as_bool(eval(l, d, driver)), as_bool(eval(r, d, driver))) {
            (Ok(false), _) | (_, Ok(false)) => Value::Bool(false),
            (Ok(true), Ok(true)) => Value::Bool(true),
            _ => return Err(EvalError),
        },
        Expr::Or(l, r) => match (as_bool(eval(l, d, driver)), as_bool(eval(r, d, driver))) {
            (Ok(true), _) | (_, Ok(true)) => Value::Bool(true),
            (Ok(false), Ok(false)) => Value::Bool(false),
            _ => return Err(EvalError),
        },
        Expr::In(x, list) => {
            let x = eval(x, d, driver)?;
            match eval(list, d, driver)? {
                Value::List(items) => Value::Bool(items.iter().any(|i| i == &x)),
                _ => return Err(EvalError),
            }
        }
        Expr::CompareTo(a, b) => match (eval(a, d, driver)?, eval(b, d, driver)?) {
            (Value::Quantity(a), Value::Quantity(b)) => Value::Int(a.cmp(&b) as i64),
            _ => return Err(EvalError),
        },
        Expr::Cmp(op, a, b) => {
            let (a, b) = (eval(a, d, driver)?, eval(b, d, driver)?);
            let ord = match (&a, &b) {
                (Value::Int(x), Value::Int(y)) => x.cmp(y),
                (Value::Str(x), Value::Str(y)) => x.cmp(y),
                (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
                // Versions only compare through semver(), which nodecast does not offer;
                // equality of two versions is plain text equality.
                (Value::Version(x), Value::Version(y)) if matches!(op, Op::Eq | Op::Ne) => x.cmp(y),
                // CEL has no overload for mixed types: a runtime error.
                _ => return Err(EvalError),
            };
            Value::Bool(match op {
                Op::Eq => ord.is_eq(),
                Op::Ne => ord.is_ne(),
                Op::Lt => ord.is_lt(),
                Op::Le => ord.is_le(),
                Op::Gt => ord.is_gt(),
                Op::Ge => ord.is_ge(),
            })
        }
    })
}

fn as_bool(v: Result<Value, EvalError>) -> Result<bool, EvalError> {
    match v? {
        Value::Bool(b) => Ok(b),
        _ => Err(EvalError),
    }
}

/// Whether the device matches the selector (an evaluation error is no match, as in Karpenter).
pub fn matches(e: &Expr, d: &Device, driver: &str) -> bool {
    matches!(eval(e, d, driver), Ok(Value::Bool(true)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> Device {
        Device {
            name: "gpu-0".into(),
            attributes: vec![
                ("productName".into(), AttrValue::Str("NVIDIA A10G".into())),
                ("resource.kubernetes.io/pcieRoot".into(), AttrValue::Str("pci0000:00".into())),
                ("cudaComputeCapability".into(), AttrValue::Version("8.6.0".into())),
                ("index".into(), AttrValue::Int(0)),
            ],
            capacity: vec![("memory".into(), crate::quantity::parse_milli("23028Mi").unwrap())],
        }
    }

    fn m(src: &str) -> bool {
        matches(&compile(src).unwrap(), &gpu(), "gpu.nvidia.com")
    }

    #[test]
    fn the_subset_evaluates_as_cel_does() {
        assert!(m(r#"device.driver == "gpu.nvidia.com""#));
        assert!(!m(r#"device.driver == "dra.net""#));
        assert!(m(r#"device.attributes["gpu.nvidia.com"].productName == "NVIDIA A10G""#));
        assert!(m(r#"device.attributes["gpu.nvidia.com"]["productName"] in ["NVIDIA L4", "NVIDIA A10G"]"#));
        assert!(m(r#"device.attributes["resource.kubernetes.io"].pcieRoot == 'pci0000:00'"#));
        assert!(m(r#"device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("20Gi")) >= 0"#));
        assert!(!m(r#"device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0"#));
        assert!(m(r#"device.attributes["gpu.nvidia.com"].index < 1 && !(device.driver != "gpu.nvidia.com")"#));
        assert!(m(r#"has(device.attributes["gpu.nvidia.com"].productName)"#));
        assert!(!m(r#"has(device.attributes["gpu.nvidia.com"].nothing)"#));
        // A missing attribute is an error: no match, unless the other side of || decides.
        assert!(!m(r#"device.attributes["gpu.nvidia.com"].nothing == "x""#));
        assert!(m(r#"device.attributes["gpu.nvidia.com"].nothing == "x" || true"#));
        assert!(!m(r#"device.attributes["gpu.nvidia.com"].nothing == "x" && true"#));
        // Mixed types have no overload: an error, not false-then-negated.
        assert!(!m(r#"!(device.attributes["gpu.nvidia.com"].index == "0")"#));
        // A version attribute is not a string.
        assert!(!m(r#"device.attributes["gpu.nvidia.com"].cudaComputeCapability == "8.6.0""#));
    }

    #[test]
    fn anything_outside_the_subset_is_refused_by_name() {
        for (src, what) in [
            (r#"device.attributes["gpu.nvidia.com"].cudaComputeCapability.isGreaterThan(semver("7.0.0"))"#, "not supported"),
            (r#"device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA")"#, "not supported"),
            ("device.driver == 'a' ? true : false", "not supported"),
            ("size(device.attributes) > 0", "not supported"),
            ("pod.name == 'x'", "undeclared reference"),
            ("device.driver", "does not evaluate to a bool"),
            ("device.driver ==", "unexpected end"),
            ("1.5 > 1", "not supported"),
        ] {
            let e = compile(src).unwrap_err();
            assert!(e.contains(what), "{src}: {e}");
        }
        let deep = format!("{}true{}", "(".repeat(200), ")".repeat(200));
        assert!(compile(&deep).unwrap_err().contains("nesting"));
        assert!(compile(&"a".repeat(MAX_EXPRESSION_LENGTH + 1)).unwrap_err().contains("bytes"));
    }
}
