//! Every byte the CLI prints goes through here, so a failed write is an error with an exit code
//! instead of being lost (issue 29: every subcommand exited 0 on a full disk or a closed
//! descriptor, and `sweep` panicked with exit 101 on a closed pipe).
//!
//! `std::io::stdout()` treats EBADF as success and `println!` panics on other errors, so the CLI
//! uses neither: at start-up it duplicates descriptors 1 and 2, and every write and flush result
//! is checked. A descriptor closed before start cannot be told from `/dev/null`: Rust's runtime
//! reopens it there (read-write) before `main`, exactly as Node's `stdio: 'ignore'` and Python's
//! `subprocess.DEVNULL` open it for their children, so it is treated as `/dev/null` (output
//! discarded, exit 0) — refusing read-write `/dev/null` broke those callers.
//!
//! The rule, documented in docs/cli.md:
//! - stdout closed by its reader (a broken pipe, `nodecast plan x -o json | head`): the reader
//!   chose to stop, as with any Unix filter; nothing is printed and the exit code is 141, what a
//!   shell reports for a process ended by SIGPIPE;
//! - any other failure to write stdout, stderr or `--out` (disk full, an I/O error): a message
//!   on stderr when stderr still works, exit code 3.

use std::fs::File;
use std::io::{self, Write};
use std::sync::OnceLock;

/// Exit code: the answer (or a message) could not be written.
pub const WRITE_FAILED: u8 = 3;
/// Exit code: stdout's reader closed the pipe (128 + SIGPIPE, as a shell reports it).
pub const BROKEN_PIPE: u8 = 141;

/// A failed write: what was being written, and why.
#[derive(Debug)]
pub struct WriteError {
    pub what: String,
    pub err: io::Error,
}

impl WriteError {
    pub fn new(what: impl Into<String>, err: io::Error) -> Self {
        WriteError { what: what.into(), err }
    }

    fn broken_pipe_on_stdout(&self) -> bool {
        self.err.kind() == io::ErrorKind::BrokenPipe && self.what == "stdout"
    }

    /// Say what failed on stderr (unless stdout's reader simply went away) and return the exit
    /// code. A stderr that cannot be written either leaves only the exit code.
    pub fn report(&self) -> u8 {
        if self.broken_pipe_on_stdout() {
            return BROKEN_PIPE;
        }
        if self.what != "stderr" {
            let _ = write_err(&format!("nodecast: cannot write {}: {}\n", self.what, self.err));
        }
        WRITE_FAILED
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}: {}", self.what, self.err)
    }
}

/// Descriptors 1 and 2 as duplicated at start-up (`None`: closed then).
struct Handles {
    stdout: Option<File>,
    stderr: Option<File>,
}

static HANDLES: OnceLock<Handles> = OnceLock::new();

#[cfg(unix)]
fn dup(fd: std::os::fd::BorrowedFd<'_>) -> Option<File> {
    fd.try_clone_to_owned().ok().map(File::from)
}

/// Duplicate stdout and stderr now, before any file is opened (a file opened while descriptor 1
/// is closed would take its number). Called first thing in `main`.
pub fn init() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        HANDLES.get_or_init(|| Handles { stdout: dup(io::stdout().as_fd()), stderr: dup(io::stderr().as_fd()) });
    }
    #[cfg(not(unix))]
    HANDLES.get_or_init(|| Handles { stdout: None, stderr: None });
}

fn closed() -> io::Error {
    io::Error::other("the descriptor is closed")
}

/// A writer on stdout (or stderr) that reports every error, closed descriptors included.
fn raw(stderr: bool) -> io::Result<Box<dyn Write>> {
    #[cfg(unix)]
    {
        let h = HANDLES.get_or_init(|| Handles { stdout: None, stderr: None });
        let f = if stderr { &h.stderr } else { &h.stdout };
        match f {
            Some(f) => Ok(Box::new(f)),
            None => Err(closed()),
        }
    }
    #[cfg(not(unix))]
    {
        Ok(if stderr { Box::new(io::stderr()) } else { Box::new(io::stdout()) })
    }
}

/// Write to stdout through a 64 KiB buffer: `f` writes, then everything is flushed; the first
/// error of either is returned.
pub fn stdout_with(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<(), WriteError> {
    let run = || -> io::Result<()> {
        let mut w = io::BufWriter::with_capacity(1 << 16, raw(false)?);
        f(&mut w)?;
        w.flush()
    };
    run().map_err(|e| WriteError::new("stdout", e))
}

/// Write `text` to stdout.
pub fn write_out(text: &str) -> Result<(), WriteError> {
    stdout_with(|w| w.write_all(text.as_bytes()))
}

/// Write `text` to stderr (unbuffered: messages arrive whole and in order). Messages quote the
/// input (a sweep spec's names, a manifest's values), so control characters are escaped: an
/// input cannot move the cursor, retitle the terminal or hide a line.
pub fn write_err(text: &str) -> Result<(), WriteError> {
    let text = escape_controls(text);
    raw(true).and_then(|mut w| w.write_all(text.as_bytes()).and_then(|_| w.flush())).map_err(|e| WriteError::new("stderr", e))
}

/// Write text nodecast made itself (the sweep's progress line, which needs its carriage
/// return) to stderr, unescaped.
pub fn write_err_own(text: &str) -> Result<(), WriteError> {
    raw(true).and_then(|mut w| w.write_all(text.as_bytes()).and_then(|_| w.flush())).map_err(|e| WriteError::new("stderr", e))
}

/// `text` with every control character but line feed and tab written as a `\u{..}` escape
/// (ESC, carriage return, backspace, DEL, the C1 controls such as U+009B CSI).
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let keep = |c: char| !c.is_control() || c == '\n' || c == '\t';
    if text.chars().all(keep) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if keep(c) {
            out.push(c);
        } else {
            out.extend(c.escape_unicode());
        }
    }
    out.into()
}

/// A buffered writer on stdout for output written piece by piece (the sweep's rows).
pub fn stdout_writer() -> Result<io::BufWriter<Box<dyn Write>>, WriteError> {
    raw(false).map(|w| io::BufWriter::with_capacity(1 << 16, w)).map_err(|e| WriteError::new("stdout", e))
}

/// Whether stderr is a terminal (the sweep's progress line).
pub fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    HANDLES.get().and_then(|h| h.stderr.as_ref()).is_some_and(|f| f.is_terminal())
}
