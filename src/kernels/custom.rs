//! Kernels of one's own: a body written by a caller (a page's kernel lab), put into the same
//! prelude as texla's kernels (`shaders/README.md`), and what compilers say about any kernel's
//! module turned into lines of its body, so that a person reads "line 3" of what they wrote.

use std::borrow::Cow;

use super::{Compute, Kernel, INPUT_NAMES, MAX_INPUTS};
use crate::error::{CompileMessage, Error, Result};

/// The longest body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Most output texels, a side, one workgroup of a compute kernel of one's own may cover.
const MAX_PER_GROUP: usize = 1024;

/// The shading language of a kernel's module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    /// WGSL (WebGPU).
    Wgsl,
    /// GLSL ES 3.00 (WebGL2).
    Glsl,
}

impl Language {
    /// The language's name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Language::Wgsl => "WGSL",
            Language::Glsl => "GLSL ES 3.00",
        }
    }
}

/// A compiler's message about a whole module, its line and column those of the module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleMessage {
    /// The module's line (1-based), if the compiler named one.
    pub line: Option<usize>,
    /// The column on that line (1-based), if the compiler named one.
    pub column: Option<usize>,
    /// What the compiler said.
    pub text: String,
}

/// A fragment kernel (or, with `per_group`, a WGSL compute kernel covering that many output
/// texels (columns, texel rows) per workgroup) from bodies of one's own: `wgsl` defines
/// `fn kernel(texel: vec2<i32>) -> vec4<f32>` (a compute body: `@compute fn cs_main(...)`
/// writing `out_tex`), `glsl` its GLSL ES 3.00 twin `vec4 kernel(ivec2 texel)` (empty for a
/// compute kernel, or where only WebGPU runs it). Its `inputs` are named `a`, `b`, ... Refuses
/// more than [`MAX_INPUTS`] inputs, a body past [`MAX_BODY_BYTES`] and an empty workgroup.
pub fn custom(
    wgsl: &str,
    glsl: &str,
    inputs: usize,
    per_group: Option<(usize, usize)>,
) -> Result<Kernel> {
    if inputs > MAX_INPUTS {
        return Err(Error::Argument(format!(
            "a kernel reads at most {MAX_INPUTS} inputs (a to f), got {inputs}"
        )));
    }
    for (language, body) in [(Language::Wgsl, wgsl), (Language::Glsl, glsl)] {
        if body.len() > MAX_BODY_BYTES {
            return Err(Error::Argument(format!(
                "the {} body has {} bytes, more than the {MAX_BODY_BYTES} a kernel may have",
                language.name(),
                body.len()
            )));
        }
    }
    let compute = match per_group {
        None => None,
        Some((x, y)) if (1..=MAX_PER_GROUP).contains(&x) && (1..=MAX_PER_GROUP).contains(&y) => {
            Some(Compute {
                per_group: (x, y),
                scratch_words: 0,
                unchecked: false,
            })
        }
        Some((x, y)) => {
            return Err(Error::Argument(format!(
                "a workgroup covers 1 to {MAX_PER_GROUP} output texels a side, got {x} x {y}"
            )))
        }
    };
    // Each body ends its last line, so that the entry point after it starts a line of its own.
    let ended = |body: &str| {
        if body.is_empty() || body.ends_with('\n') {
            body.to_owned()
        } else {
            format!("{body}\n")
        }
    };
    Ok(Kernel {
        name: Cow::Borrowed("your kernel"),
        inputs: &INPUT_NAMES[..inputs],
        wgsl: Cow::Owned(ended(wgsl)),
        glsl: Cow::Owned(ended(glsl)),
        outputs: 1,
        compute,
    })
}

impl Kernel {
    /// The module line (1-based) of the body's first line, and the body's lines.
    fn body_lines(&self, language: Language) -> (usize, usize) {
        let (head, body) = match language {
            Language::Wgsl => (self.wgsl_head(), &self.wgsl),
            Language::Glsl => (self.glsl_head(), &self.glsl),
        };
        let lines = body.matches('\n').count() + usize::from(!body.ends_with('\n'));
        (head.matches('\n').count() + 1, lines)
    }

    /// [`Error::Compile`] from a compiler's `messages` about this kernel's module in
    /// `language`: a line in the body becomes that line of the body; a line of the prelude
    /// before it, or of the entry point after it, is said in the text.
    pub fn compile_error(&self, language: Language, messages: Vec<ModuleMessage>) -> Error {
        let (first, count) = self.body_lines(language);
        let messages = messages
            .into_iter()
            .map(|m| match m.line {
                Some(line) if (first..first + count).contains(&line) => CompileMessage {
                    line: Some(line - first + 1),
                    column: m.column,
                    text: m.text,
                },
                Some(line) => {
                    let place = if line < first {
                        "texla's prelude before the body"
                    } else {
                        "texla's entry point after the body, which calls the body's kernel"
                    };
                    CompileMessage {
                        line: None,
                        column: None,
                        text: format!("in {place} (line {line} of the module): {}", m.text),
                    }
                }
                None => CompileMessage {
                    line: None,
                    column: None,
                    text: m.text,
                },
            })
            .collect();
        Error::Compile {
            kernel: self.name.to_string(),
            language: language.name(),
            messages,
        }
    }
}

/// The errors of a GLSL compiler's info log, one a line: ANGLE's (Chrome, Edge, Firefox on
/// Windows) `ERROR: 0:12: 'x' : undeclared identifier` and Mesa's `0:12(5): error: ...`. Lines
/// that name no place (`2 compilation errors. No code generated.`) are kept only when no
/// other line is there.
pub fn glsl_messages(log: &str) -> Vec<ModuleMessage> {
    let mut placed = Vec::new();
    let mut other = Vec::new();
    for raw in log.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let line = raw.strip_prefix("ERROR:").map_or(raw, str::trim_start);
        if line.starts_with("WARNING:") {
            continue;
        }
        match glsl_place(line) {
            Some((module_line, column, text)) => placed.push(ModuleMessage {
                line: Some(module_line),
                column,
                text: text.to_owned(),
            }),
            None => other.push(ModuleMessage {
                line: None,
                column: None,
                text: line.to_owned(),
            }),
        }
    }
    if placed.is_empty() {
        other
    } else {
        placed
    }
}

/// `0:12: text` (ANGLE) or `0:12(5): error: text` (Mesa) as (12, column, text).
fn glsl_place(line: &str) -> Option<(usize, Option<usize>, &str)> {
    let (_source, rest) = line.split_once(':')?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let number: usize = rest[..digits].parse().ok()?;
    let rest = &rest[digits..];
    let (column, rest) = match rest.strip_prefix('(') {
        Some(r) => {
            let (col, r) = r.split_once(')')?;
            (col.parse().ok(), r)
        }
        None => (None, rest),
    };
    let text = rest.strip_prefix(':')?.trim();
    let text = text.strip_prefix("error:").map_or(text, str::trim);
    Some((number, column, text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WGSL: &str = "fn kernel(texel: vec2<i32>) -> vec4<f32> {\n    let v = a_texel(texel.x, texel.y)\n    return v;\n}";

    #[test]
    fn a_body_goes_between_the_prelude_and_the_entry_point() {
        let k = custom(WGSL, "", 2, None).unwrap();
        assert_eq!(k.inputs, &["a", "b"]);
        let src = k.wgsl_source();
        let (first, count) = k.body_lines(Language::Wgsl);
        assert_eq!(count, 4);
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(
            lines[first - 1],
            "fn kernel(texel: vec2<i32>) -> vec4<f32> {"
        );
        assert_eq!(lines[first + 2], "}");
        // The body's last line stands alone although it had no newline: the entry point follows.
        assert!(lines[first + 3..].concat().contains("fn fs_main("));
        let glsl = custom(
            "",
            "vec4 kernel(ivec2 texel) { return vec4(1.0); }",
            0,
            None,
        )
        .unwrap();
        let (first, count) = glsl.body_lines(Language::Glsl);
        assert_eq!(count, 1);
        assert_eq!(
            glsl.glsl_source().lines().nth(first - 1),
            Some("vec4 kernel(ivec2 texel) { return vec4(1.0); }")
        );
        // Different bodies are different pipelines.
        assert_ne!(k.key(), custom(WGSL, "", 1, None).unwrap().key());
        assert_ne!(k.key(), custom(WGSL, "", 2, Some((8, 8))).unwrap().key());
    }

    #[test]
    fn bad_kernels_are_refused_with_a_reason() {
        let many = custom(WGSL, "", 7, None).unwrap_err();
        assert!(many.to_string().contains("at most 6 inputs"), "{many}");
        let long = "x".repeat(MAX_BODY_BYTES + 1);
        assert!(custom(&long, "", 1, None)
            .unwrap_err()
            .to_string()
            .contains("bytes"));
        let empty = custom(WGSL, "", 1, Some((0, 8))).unwrap_err();
        assert!(empty.to_string().contains("1 to 1024"), "{empty}");
    }

    #[test]
    fn module_lines_become_body_lines() {
        let k = custom(WGSL, "", 1, None).unwrap();
        let (first, _) = k.body_lines(Language::Wgsl);
        let at = |line| ModuleMessage {
            line: Some(line),
            column: Some(5),
            text: "expected ';'".into(),
        };
        let e = k.compile_error(
            Language::Wgsl,
            vec![
                at(first + 1),
                at(first + 10),
                at(2),
                ModuleMessage {
                    line: None,
                    column: None,
                    text: "no entry point".into(),
                },
            ],
        );
        let Error::Compile {
            language, messages, ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert_eq!(*language, "WGSL");
        assert_eq!((messages[0].line, messages[0].column), (Some(2), Some(5)));
        assert_eq!(messages[1].line, None);
        assert!(messages[1]
            .text
            .starts_with("in texla's entry point after the body"));
        assert!(messages[2]
            .text
            .starts_with("in texla's prelude before the body (line 2"));
        assert_eq!(messages[3].text, "no entry point");
        assert!(e
            .to_string()
            .starts_with("the kernel \"your kernel\" did not compile (WGSL): line 2, column 5: expected ';'; in texla's"));
    }

    #[test]
    fn glsl_logs_of_angle_and_mesa_parse() {
        let angle = "ERROR: 0:42: 'y' : undeclared identifier \nERROR: 0:42: '' : compilation terminated \nERROR: 2 compilation errors.  No code generated.\n\n";
        let m = glsl_messages(angle);
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].line, Some(42));
        assert_eq!(m[0].text, "'y' : undeclared identifier");
        let mesa = glsl_messages("0:7(12): error: syntax error, unexpected '}'\n");
        assert_eq!((mesa[0].line, mesa[0].column), (Some(7), Some(12)));
        assert_eq!(mesa[0].text, "syntax error, unexpected '}'");
        let bare = glsl_messages("ERROR: something broke\nWARNING: 0:3: unused\n");
        assert_eq!(bare.len(), 1);
        assert_eq!(
            (bare[0].line, bare[0].text.as_str()),
            (None, "something broke")
        );
    }
}
