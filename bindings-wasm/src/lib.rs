//! nodecast for JavaScript (WebAssembly). This crate only translates: a JS value becomes the
//! JSON request of [`nodecast::call`], and the answer's JSON becomes a JS object. Every decision
//! is the core's, so the answers are byte for byte what `nodecast <fn> -o json` prints.
//!
//! The public npm API is the JS wrapper in `js/` (it adds panic recovery); these exports are
//! what the wrapper calls:
//!
//! * `callJson(fn, requestJson) -> string`: the core's exact JSON.
//! * `call(fn, input, options) -> object` and `plan`/`consolidate`/`validate`/`explain`/`catalog`
//!   `(input, options) -> object`. `input` is a request object (`{inputs, objects, catalog,
//!   settings, now, until, pod, node, instanceType, query}`), or a string: manifest text (YAML/JSON,
//!   one or many documents) wrapped as `{inputs: [{name: options.name ?? "input", text}]}`, or,
//!   with `options.as == "request"`, a JSON request. Every other option is a request field that
//!   overrides the request's (`consolidate(yaml, {now: "2025-03-05T12:00:00Z"})`), except
//!   `options.reservations` (describe-capacity-reservations output: the object or its text),
//!   which is appended to the request's `objects` / `inputs`.
//!   `undefined`/`null` is the empty request. User errors are failure answers, never exceptions.
//!   `options.deadlineMs` (a number > 0) bounds the call's wall time: the core polls a
//!   cancellation hook ([`nodecast::interrupt`]) that compares `Date.now()` with the deadline, and
//!   a call past it stops within one loop step and answers a failure with code
//!   `deadline-exceeded` (the core itself never reads a clock).
//! * A manifest string with a lone UTF-16 surrogate (JS strings may hold one; UTF-8 cannot) is a
//!   located `invalid-text` failure, not silently replaced with U+FFFD.
//!
//! Panics: the module is built with `panic = "abort"`, so a panic ends in a wasm `unreachable`
//! trap (a JS `RuntimeError`) and the instance must not be used again. The hook installed at
//! start-up records the panic message in linear memory first; the wrapper reads it through
//! `__nodecast_panic_ptr`/`__nodecast_panic_len`, re-instantiates the module and returns a
//! failure answer with code `internal-panic`.

use nodecast::Answer;
use nodecast::error::InputError;
use serde_json::{Map, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use wasm_bindgen::prelude::*;

static PANIC_PTR: AtomicUsize = AtomicUsize::new(0);
static PANIC_LEN: AtomicUsize = AtomicUsize::new(0);

#[wasm_bindgen(start, skip_typescript)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        let what = info.payload_as_str().unwrap_or("(a panic without a message)");
        let text = match info.location() {
            Some(at) => format!("{what} (at {}:{}:{})", at.file(), at.line(), at.column()),
            None => what.to_string(),
        };
        // Leaked on purpose: the instance is discarded after the abort that follows.
        let message: &'static str = Box::leak(text.into_boxed_str());
        PANIC_PTR.store(message.as_ptr() as usize, Ordering::SeqCst);
        PANIC_LEN.store(message.len(), Ordering::SeqCst);
    }));
}

/// Address of the last panic message in linear memory (0 = none). Reads two globals only, so it
/// is safe to call on an instance that has just trapped.
#[wasm_bindgen(js_name = __nodecast_panic_ptr, skip_typescript)]
pub fn panic_ptr() -> usize {
    PANIC_PTR.load(Ordering::SeqCst)
}

/// Length in bytes (UTF-8) of the last panic message.
#[wasm_bindgen(js_name = __nodecast_panic_len, skip_typescript)]
pub fn panic_len() -> usize {
    PANIC_LEN.load(Ordering::SeqCst)
}

/// The instance's linear memory, for reading the panic message after a trap.
#[wasm_bindgen(js_name = __nodecast_memory, skip_typescript)]
pub fn memory() -> JsValue {
    wasm_bindgen::memory()
}

/// Debug export for tests of the panic path: panics with `message`.
#[wasm_bindgen(js_name = __nodecast_test_panic, skip_typescript)]
pub fn test_panic(message: &str) {
    panic!("{message}");
}

/// The core's answer JSON, unchanged (`nodecast <fn> -o json` without the trailing newline).
#[wasm_bindgen(js_name = callJson, skip_typescript)]
pub fn call_json(function: &str, request_json: &str) -> String {
    nodecast::call(function, request_json)
}

/// Any facade function by name; the answer as a JS object.
#[wasm_bindgen(js_name = call, skip_typescript)]
pub fn call_js(function: &str, input: JsValue, options: JsValue) -> JsValue {
    answer(function, &input, &options)
}

#[wasm_bindgen(skip_typescript)]
pub fn plan(input: JsValue, options: JsValue) -> JsValue {
    answer("plan", &input, &options)
}

#[wasm_bindgen(skip_typescript)]
pub fn consolidate(input: JsValue, options: JsValue) -> JsValue {
    answer("consolidate", &input, &options)
}

#[wasm_bindgen(skip_typescript)]
pub fn validate(input: JsValue, options: JsValue) -> JsValue {
    answer("validate", &input, &options)
}

#[wasm_bindgen(skip_typescript)]
pub fn explain(input: JsValue, options: JsValue) -> JsValue {
    answer("explain", &input, &options)
}

#[wasm_bindgen(skip_typescript)]
pub fn catalog(input: JsValue, options: JsValue) -> JsValue {
    answer("catalog", &input, &options)
}

fn answer(function: &str, input: &JsValue, options: &JsValue) -> JsValue {
    // The clock whole-call budgets read (advise's `timeBudgetSeconds`), seconds since now.
    let started = js_sys::Date::now();
    let timed = |request: &str| nodecast::interrupt::with_clock(move || (js_sys::Date::now() - started) / 1000.0, || nodecast::call(function, request));
    let json = match (request_json(input, options), deadline_ms(options)) {
        (Err(Refused::Text(error)), _) => failure(function, error),
        (Err(Refused::Request(message)), _) | (_, Err(message)) => invalid_request(function, message),
        (Ok(request), Ok(None)) => timed(&request),
        (Ok(request), Ok(Some(ms))) => {
            let until = js_sys::Date::now() + ms;
            nodecast::interrupt::run(move || js_sys::Date::now() > until, || timed(&request)).unwrap_or_else(|_| deadline_exceeded(function, ms))
        }
    };
    js_sys::JSON::parse(&json).unwrap_or_else(|_| JsValue::from_str(&json))
}

/// `options.deadlineMs`: `None` when absent, else a finite number ≥ 0.
fn deadline_ms(options: &JsValue) -> Result<Option<f64>, String> {
    if !options.is_object() {
        return Ok(None);
    }
    let v = js_sys::Reflect::get(options, &JsValue::from_str("deadlineMs")).unwrap_or(JsValue::UNDEFINED);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    match v.as_f64() {
        Some(ms) if ms.is_finite() && ms >= 0.0 => Ok(Some(ms)),
        _ => Err(format!("options.deadlineMs must be a finite number of milliseconds ≥ 0, not {}", js_message(&v))),
    }
}

/// The manifest text of a JS string, or a located error for a lone surrogate: a JS string is
/// UTF-16 and may hold one, and `as_string` would replace it with U+FFFD without a word.
fn manifest_text(input: &JsValue, name: &str) -> Result<String, InputError> {
    let js: &js_sys::JsString = input.unchecked_ref();
    if js.is_valid_utf16() {
        return Ok(input.as_string().unwrap_or_default());
    }
    let units: Vec<u16> = js.iter().collect();
    let (mut line, mut column) = (1usize, 1usize);
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Err(e) => {
                let mut error = InputError::new(
                    "invalid-text",
                    format!(
                        "the text holds a lone UTF-16 surrogate (0x{:04X}) at line {line}, column {column}: it is no character and cannot be decoded",
                        e.unpaired_surrogate()
                    ),
                )
                .help("remove the character or write it as a pair (a JS string built by slicing may split a pair)");
                // Located like the core's syntax errors: the input's name, line and column.
                error.source = Some(name.to_string());
                error.line = Some(line);
                error.column = Some(column);
                return Err(error);
            }
            Ok('\n') => {
                line += 1;
                column = 1;
            }
            Ok(_) => column += 1,
        }
    }
    Ok(input.as_string().unwrap_or_default())
}

/// The failure answer for a call stopped by `options.deadlineMs`.
fn deadline_exceeded(function: &str, ms: f64) -> String {
    let error = InputError::new("deadline-exceeded", format!("the call did not finish within options.deadlineMs = {ms} ms and was stopped"))
        .path("options.deadlineMs")
        .help("a larger deadlineMs, or a smaller input (README: resource bounds)");
    failure(function, error)
}

/// Why there is no request: a bad request shape, or manifest text that is no text.
enum Refused {
    Request(String),
    Text(InputError),
}

impl From<String> for Refused {
    fn from(message: String) -> Self {
        Refused::Request(message)
    }
}

impl From<&str> for Refused {
    fn from(message: &str) -> Self {
        Refused::Request(message.to_string())
    }
}

/// The JSON request for `input` and `options` (see the crate docs), or why there is none.
fn request_json(input: &JsValue, options: &JsValue) -> Result<String, Refused> {
    let mut overrides = match to_json(options, "options")? {
        None => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err("options must be an object".into()),
    };
    // Read by `answer` (deadline_ms), not a request field.
    overrides.remove("deadlineMs");
    // `options.reservations`: one more input document, appended below (not an override).
    let reservations = overrides.remove("reservations").filter(|v| !v.is_null());
    let as_request = match overrides.remove("as") {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) if s == "manifests" => false,
        Some(Value::String(s)) if s == "request" => true,
        Some(other) => return Err(format!("options.as must be \"manifests\" or \"request\", not {other}").into()),
    };
    let name = match overrides.remove("name") {
        None | Some(Value::Null) => "input".to_string(),
        Some(Value::String(s)) => s,
        Some(other) => return Err(format!("options.name must be a string, not {other}").into()),
    };
    let request = if input.is_string() {
        let text = match manifest_text(input, &name) {
            Ok(text) => text,
            Err(e) => return Err(Refused::Text(e)),
        };
        if as_request {
            if overrides.is_empty() && reservations.is_none() {
                return Ok(text);
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(v) => v,
                // Not JSON: the core says so, located.
                Err(_) => return Ok(text),
            }
        } else {
            let mut one = Map::new();
            one.insert("name".into(), Value::String(name));
            one.insert("text".into(), Value::String(text));
            let mut req = Map::new();
            req.insert("inputs".into(), Value::Array(vec![Value::Object(one)]));
            Value::Object(req)
        }
    } else {
        match stringify(input, "the request")? {
            None => Value::Object(Map::new()),
            // Nothing to merge: the text as it is.
            Some(text) if overrides.is_empty() && reservations.is_none() => return Ok(text),
            Some(text) => serde_json::from_str(&text).map_err(|e| format!("the request is not JSON: {e}"))?,
        }
    };
    Ok(match request {
        Value::Object(mut req) => {
            req.extend(overrides);
            if let Some(r) = reservations {
                add_reservations(&mut req, r)?;
            }
            Value::Object(req).to_string()
        }
        // Not an object: the core reports it (overrides cannot apply).
        other => other.to_string(),
    })
}

/// `options.reservations`: the output of `aws ec2 describe-capacity-reservations`, as the parsed
/// object (appended to the request's `objects`) or its JSON/YAML text (appended to `inputs`,
/// named `reservations`), or an array of those. Only translated: the core reads the document.
fn add_reservations(req: &mut Map<String, Value>, value: Value) -> Result<(), Refused> {
    let push = |req: &mut Map<String, Value>, key: &str, item: Value| -> Result<(), Refused> {
        match req.entry(key.to_string()).or_insert_with(|| Value::Array(Vec::new())) {
            Value::Array(items) => {
                items.push(item);
                Ok(())
            }
            _ => Err(format!("the request's {key} is not an array, so options.reservations cannot be added to it").into()),
        }
    };
    match value {
        Value::Object(_) => push(req, "objects", value),
        Value::String(text) => {
            let mut one = Map::new();
            one.insert("name".into(), Value::String("reservations".into()));
            one.insert("text".into(), Value::String(text));
            push(req, "inputs", Value::Object(one))
        }
        Value::Array(items) => items.into_iter().try_for_each(|item| add_reservations(req, item)),
        other => Err(format!(
            "options.reservations must be the output of aws ec2 describe-capacity-reservations (an object with CapacityReservations, or its JSON/YAML text), or an array of those, not {other}"
        )
        .into()),
    }
}

/// `JSON.stringify(value)` (JS semantics: `undefined` members dropped, `Date`s become RFC 3339
/// strings); `None` for `undefined`/`null`.
fn stringify(value: &JsValue, what: &str) -> Result<Option<String>, String> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    js_sys::JSON::stringify(value)
        .map_err(|e| format!("{what} cannot be converted to JSON: {}", js_message(&e)))?
        .as_string()
        .map(Some)
        .ok_or_else(|| format!("{what} cannot be converted to JSON (a function or symbol?)"))
}

/// [`stringify`], parsed.
fn to_json(value: &JsValue, what: &str) -> Result<Option<Value>, String> {
    match stringify(value, what)? {
        None => Ok(None),
        Some(text) => serde_json::from_str(&text).map(Some).map_err(|e| format!("{what} is not JSON: {e}")),
    }
}

fn js_message(e: &JsValue) -> String {
    e.dyn_ref::<js_sys::Error>().map(|e| String::from(e.message())).or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}"))
}

/// The failure answer the core would give for a request that is not one.
fn invalid_request(function: &str, message: String) -> String {
    let error = InputError::new("invalid-request", message).help(
        "a request object {inputs, objects, catalog, settings, now, until, pod, node, instanceType, query, trace, simulation}, or manifest \
         text with options {name, as: \"manifests\" | \"request\", deadlineMs, ...request fields}",
    );
    failure(function, error)
}

/// A failure answer of `function`'s kind carrying `error`.
fn failure(function: &str, error: InputError) -> String {
    let kind = match function {
        "plan" => "Plan",
        "consolidate" => "Decision",
        "explain" => "Explanation",
        "validate" => "Validation",
        "catalog" => "CatalogQuery",
        "simulate" | "simulate-csv" | "simulate-prom" => "Simulation",
        // Unknown function: the core's own answer.
        _ => return nodecast::call(function, "{}"),
    };
    Answer::<()>::failure(kind, vec![error]).to_json()
}
