//! The one error type of the crate.
//!
//! Every failure a user can cause is a variant here with a message written for a person reading
//! the page; the JS API turns it into a thrown `Error` (or a rejected promise).

use std::fmt;

/// Everything that can go wrong in texla.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// No backend could be started; the message says what is missing.
    BackendUnavailable(String),
    /// The backend name given is not one of "auto", "webgpu", "webgl2".
    UnknownBackend(String),
    /// The data handed to `upload` does not hold `rows * cols` values.
    DataLength {
        /// Values received.
        len: usize,
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// A matrix dimension is zero.
    ZeroDimension {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
    },
    /// The matrix needs a texture larger than the device allows.
    TooLarge {
        /// Rows asked for.
        rows: usize,
        /// Columns asked for.
        cols: usize,
        /// Texture width needed (= cols).
        width: usize,
        /// Texture height needed (= ceil(rows / 4)).
        height: usize,
        /// The device's maximum texture side.
        max: u32,
    },
    /// A bad argument or option from JavaScript: not a number, not whole, out of range, an
    /// unknown name.
    Argument(String),
    /// Operands whose shapes do not fit the operation.
    Shape(String),
    /// An element-wise expression that does not parse or exceeds a limit.
    Expr(String),
    /// A matrix that was freed was used.
    Freed,
    /// A matrix created by another `Gpgpu` was used.
    ForeignMatrix,
    /// The backend cannot do this (compute shaders on WebGL2).
    Unsupported(String),
    /// A solver cannot go on: a breakdown, a divergence, a zero on the diagonal.
    Solver(String),
    /// The wall simulation cannot go on (non-finite state, bad settings).
    Simulation(String),
    /// The caller cancelled a long run.
    Cancelled,
    /// A kernel's source did not compile: what the compiler said, its lines counted in the
    /// kernel's body (the prelude around it mapped away).
    Compile {
        /// The kernel's name.
        kernel: String,
        /// The shading language: "WGSL" or "GLSL ES 3.00".
        language: &'static str,
        /// The compiler's messages, errors only.
        messages: Vec<CompileMessage>,
    },
    /// The GPU rejected something: a failed read-back, a pipeline it would not build.
    Gpu(String),
    /// The GPU went away (the WebGL2 context or the WebGPU device was lost), with why.
    Lost(String),
    /// The matrix was on a GPU that was lost, and nothing on the CPU held its values.
    LostMatrix,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BackendUnavailable(why) => write!(f, "{why}"),
            Error::UnknownBackend(name) => write!(
                f,
                "unknown backend \"{name}\": use \"auto\", \"webgpu\" or \"webgl2\""
            ),
            Error::DataLength { len, rows, cols } => write!(
                f,
                "data has {len} values but a {rows}x{cols} matrix needs {}",
                rows * cols
            ),
            Error::ZeroDimension { rows, cols } => write!(
                f,
                "a {rows}x{cols} matrix has a zero dimension: rows and cols must be at least 1"
            ),
            Error::TooLarge {
                rows,
                cols,
                width,
                height,
                max,
            } => write!(
                f,
                "a {rows}x{cols} matrix needs a {width}x{height} texture, but this device allows at most {max}x{max}"
            ),
            Error::Argument(msg) | Error::Shape(msg) => write!(f, "{msg}"),
            Error::Expr(msg) => write!(f, "bad expression: {msg}"),
            Error::Freed => write!(f, "this matrix was freed and can no longer be used"),
            Error::ForeignMatrix => write!(
                f,
                "this matrix belongs to another Gpgpu: matrices cannot be mixed between instances"
            ),
            Error::Unsupported(msg) => write!(f, "{msg}"),
            Error::Solver(msg) => write!(f, "{msg}"),
            Error::Simulation(msg) => write!(f, "{msg}"),
            Error::Cancelled => write!(f, "cancelled"),
            Error::Compile {
                kernel,
                language,
                messages,
            } => {
                write!(f, "the kernel \"{kernel}\" did not compile ({language}): ")?;
                let said: Vec<String> = messages.iter().map(ToString::to_string).collect();
                write!(f, "{}", said.join("; "))
            }
            Error::Gpu(msg) => write!(f, "GPU error: {msg}"),
            Error::Lost(why) => write!(
                f,
                "the GPU went away ({why}): this Gpgpu comes back by itself (on a later call \
                 once a new device opens or the browser restores the WebGL2 context; after \
                 loseContext() only through restore()), or when restore() brings it back; \
                 matrices with a copy on the CPU come back with it"
            ),
            Error::LostMatrix => write!(
                f,
                "this matrix was lost with the GPU context: it was computed on the GPU and never \
                 read back, so no copy of it survived; compute it again"
            ),
        }
    }
}

impl std::error::Error for Error {}

/// One message of a shader compiler about a kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileMessage {
    /// The line of the kernel's body it is about (1-based), or `None` where it names no line
    /// or a line of texla's code around the body (the text then says which).
    pub line: Option<usize>,
    /// The column on that line (1-based, in characters), where the compiler gave one.
    pub column: Option<usize>,
    /// What the compiler said.
    pub text: String,
}

impl fmt::Display for CompileMessage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "line {line}, column {column}: {}", self.text),
            (Some(line), None) => write!(f, "line {line}: {}", self.text),
            _ => write!(f, "{}", self.text),
        }
    }
}

impl From<Error> for wasm_bindgen::JsValue {
    /// A JavaScript `Error` with the message; a compile error also carries `messages`
    /// (`{ line, column, message }`, line and column null where there are none) and `lines`
    /// (the lines of the body named, each once, in order), for a page to mark them.
    fn from(e: Error) -> Self {
        let error = js_sys::Error::new(&e.to_string());
        if let Error::Compile { messages, .. } = &e {
            let number =
                |v: Option<usize>| v.map_or(wasm_bindgen::JsValue::NULL, |v| (v as f64).into());
            let list = js_sys::Array::new();
            for m in messages {
                let o = js_sys::Object::new();
                let _ = js_sys::Reflect::set(&o, &"line".into(), &number(m.line));
                let _ = js_sys::Reflect::set(&o, &"column".into(), &number(m.column));
                let _ = js_sys::Reflect::set(&o, &"message".into(), &m.text.as_str().into());
                list.push(&o);
            }
            let lines: Vec<usize> = messages.iter().filter_map(|m| m.line).collect();
            let mut named: Vec<usize> = crate::order::order_by(lines.len(), |i| lines[i] as u64)
                .into_iter()
                .map(|i| lines[i])
                .collect();
            named.dedup();
            let lines: js_sys::Array = named.iter().map(|&l| number(Some(l))).collect();
            let _ = js_sys::Reflect::set(&error, &"messages".into(), &list);
            let _ = js_sys::Reflect::set(&error, &"lines".into(), &lines);
        }
        error.into()
    }
}

/// The crate's result type.
pub type Result<T> = std::result::Result<T, Error>;
