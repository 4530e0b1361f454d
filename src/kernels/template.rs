//! Shader source templates: a body in `shaders/` with `{name}` placeholders, filled by name
//! through ONE checked path (after burn's `SourceTemplate::register(..).complete()`).
//!
//! A placeholder is `{` + an identifier (`[A-Za-z_][A-Za-z0-9_]*`) + `}`; braces around
//! anything else (`{ return x; }`) are shader code. [`Template::register`] gives a placeholder
//! its value; [`Template::repeat_lines`] and [`Template::repeat_block`] unroll the lines that
//! hold a marker placeholder (`{t}`), writing it 0, 1, ... in each copy. [`Template::complete`]
//! refuses a placeholder of the template left unfilled, and a value or a marker for a
//! placeholder the template lacks: the templates are the crate's own constants, so either is a
//! bug in texla, and it panics with the file and the placeholder, when the kernel is built.
//!
//! ```
//! use texla::kernels::Template;
//! let src = Template::new("example.wgsl", "var x{t} = {zero};\nlet n = {N};\n")
//!     .repeat_lines("t", 2)
//!     .register("N", 2)
//!     .register("zero", "0.0")
//!     .complete();
//! assert_eq!(src, "var x0 = 0.0;\nvar x1 = 0.0;\nlet n = 2;\n");
//! ```

use std::fmt::Display;

/// A shader template being filled (see the module docs).
#[derive(Debug, Clone)]
#[must_use = "a template does nothing until `complete` fills it"]
pub struct Template {
    /// The file, for messages (`products/matmul_fast.wgsl`).
    file: &'static str,
    /// The source so far: the template with the markers unrolled.
    source: String,
    /// The placeholders of the template as given, before any unrolling, with repeats.
    placeholders: Vec<String>,
    /// The placeholders given a value, with it.
    values: Vec<(&'static str, String)>,
    /// The markers unrolled.
    unrolled: Vec<&'static str>,
}

impl Template {
    /// The template `source`, read from `file` (named in messages).
    pub fn new(file: &'static str, source: &str) -> Self {
        Template {
            file,
            placeholders: placeholders(source).map(str::to_owned).collect(),
            source: source.to_owned(),
            values: Vec::new(),
            unrolled: Vec::new(),
        }
    }

    /// `{name}` filled with `value`.
    ///
    /// # Panics
    /// When the template has no `{name}`, or `{name}` was given already.
    pub fn register(mut self, name: &'static str, value: impl Display) -> Self {
        self.claim(name, "a value");
        self.values.push((name, value.to_string()));
        self
    }

    /// Each line that holds `{marker}` written out `count` times, the marker filled with 0, 1,
    /// ... ([`repeat_lines`]).
    ///
    /// # Panics
    /// As [`Template::register`].
    pub fn repeat_lines(mut self, marker: &'static str, count: usize) -> Self {
        self.claim(marker, "repeated lines");
        self.unrolled.push(marker);
        self.source = repeat_lines(&self.source, &format!("{{{marker}}}"), count);
        self
    }

    /// Each block of lines from one holding `{marker} begin` to one holding `{marker} end`
    /// (both dropped) written out `count` times, the marker filled with 0, 1, ...
    /// ([`repeat_block`]).
    ///
    /// # Panics
    /// As [`Template::register`], and when a block is never closed.
    pub fn repeat_block(mut self, marker: &'static str, count: usize) -> Self {
        self.claim(marker, "a repeated block");
        self.unrolled.push(marker);
        self.source = repeat_block(&self.source, &format!("{{{marker}}}"), count);
        self
    }

    /// The filled source.
    ///
    /// # Panics
    /// When a placeholder of the template got neither a value nor an unrolling, or when a
    /// marker is left outside the lines that unrolled it.
    pub fn complete(self) -> String {
        if let Some(missing) = self.placeholders.iter().find(|p| !self.given(p)) {
            panic!(
                "shaders/{}: placeholder {{{missing}}} left unfilled",
                self.file
            );
        }
        let mut out = String::with_capacity(self.source.len() * 2);
        let mut rest = self.source.as_str();
        while let Some((start, name)) = next_placeholder(rest) {
            let value = self.values.iter().find(|(n, _)| *n == name);
            let Some((_, value)) = value else {
                panic!(
                    "shaders/{}: {{{name}}} left outside the lines that repeat it",
                    self.file
                );
            };
            out.push_str(&rest[..start]);
            out.push_str(value);
            rest = &rest[start + name.len() + 2..];
        }
        out.push_str(rest);
        out
    }

    /// Refuses `what` for `name` when the template lacks `{name}` or it was given already.
    fn claim(&self, name: &str, what: &str) {
        assert!(
            self.placeholders.iter().any(|p| p == name),
            "shaders/{}: {what} for {{{name}}}, a placeholder the template lacks",
            self.file
        );
        assert!(
            !self.given(name),
            "shaders/{}: {{{name}}} is given twice",
            self.file
        );
    }

    /// Whether `name` got a value or was unrolled.
    fn given(&self, name: &str) -> bool {
        self.values.iter().any(|(n, _)| *n == name) || self.unrolled.contains(&name)
    }
}

/// The names of the placeholders of `src`, in order, with repeats.
pub fn placeholders(src: &str) -> impl Iterator<Item = &str> {
    let mut rest = src;
    std::iter::from_fn(move || {
        let (start, name) = next_placeholder(rest)?;
        rest = &rest[start + name.len() + 2..];
        Some(name)
    })
}

/// The first placeholder of `src`: where its `{` is, and its name.
fn next_placeholder(src: &str) -> Option<(usize, &str)> {
    let mut from = 0;
    while let Some(i) = src[from..].find('{') {
        let start = from + i;
        let after = &src[start + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..len];
        let leads = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if leads && after[len..].starts_with('}') {
            return Some((start, name));
        }
        from = start + 1;
    }
    None
}

/// Each line of `src` that contains `marker`, written out `count` times with the marker
/// replaced by 0, 1, ...: how a kernel unrolls what it does per render target or per texel,
/// so that its registers are named variables rather than arrays indexed at run time.
pub fn repeat_lines(src: &str, marker: &str, count: usize) -> String {
    let mut out = String::with_capacity(src.len() * 2);
    for line in src.lines() {
        if line.contains(marker) {
            for i in 0..count {
                out.push_str(&line.replace(marker, &i.to_string()));
                out.push('\n');
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// `src` with each block of lines that starts at a line containing `{marker} begin` and ends at
/// the next line containing `{marker} end` (those two lines dropped) written out `count` times,
/// the marker replaced by 0, 1, ... in each copy: how a kernel writes out a loop whose body is
/// several lines (the steps of k in `matmul_tiled`).
pub fn repeat_block(src: &str, marker: &str, count: usize) -> String {
    let (open, close) = (format!("{marker} begin"), format!("{marker} end"));
    let mut out = String::with_capacity(src.len() * 2);
    let mut block: Option<Vec<&str>> = None;
    for line in src.lines() {
        match &mut block {
            None if line.contains(&open) => block = Some(Vec::new()),
            None => {
                out.push_str(line);
                out.push('\n');
            }
            Some(lines) if line.contains(&close) => {
                for i in 0..count {
                    for l in lines.iter() {
                        out.push_str(&l.replace(marker, &i.to_string()));
                        out.push('\n');
                    }
                }
                block = None;
            }
            Some(lines) => lines.push(line),
        }
    }
    assert!(block.is_none(), "a block opened by {open} is never closed");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_by_name_and_leaves_shader_braces() {
        let t = Template::new(
            "t.wgsl",
            "fn {name}_rows() -> i32 { return s[{slot}].x; }\n{1}{}",
        );
        assert_eq!(
            t.register("name", "a").register("slot", 1).complete(),
            "fn a_rows() -> i32 { return s[1].x; }\n{1}{}"
        );
        // A value is not read as a template: its braces stay.
        let t = Template::new("t.wgsl", "{a} {b}");
        assert_eq!(
            t.register("a", "{b}").register("b", "x").complete(),
            "{b} x"
        );
        let names: Vec<&str> = placeholders("{a}{ b }{_c1}{9}{a}").collect();
        assert_eq!(names, ["a", "_c1", "a"]);
    }

    #[test]
    fn unrolls_markers_then_fills() {
        let src = "a\n// {p} begin\nx[{p}] = {v};\n// {p} end\nb{t} = {N};\n";
        let out = Template::new("t.wgsl", src)
            .repeat_block("p", 2)
            .repeat_lines("t", 0)
            .register("v", 1.5)
            .register("N", 2)
            .complete();
        assert_eq!(out, "a\nx[0] = 1.5;\nx[1] = 1.5;\n");
    }

    #[test]
    #[should_panic(expected = "shaders/t.wgsl: placeholder {b} left unfilled")]
    fn refuses_a_placeholder_left_unfilled() {
        let _ = Template::new("t.wgsl", "{a} {b}")
            .register("a", 1)
            .complete();
    }

    #[test]
    #[should_panic(expected = "shaders/t.wgsl: a value for {c}, a placeholder the template lacks")]
    fn refuses_a_value_without_a_placeholder() {
        let _ = Template::new("t.wgsl", "{a}").register("c", 1);
    }

    #[test]
    #[should_panic(expected = "repeated lines for {t}, a placeholder the template lacks")]
    fn refuses_a_marker_without_a_placeholder() {
        let _ = Template::new("t.wgsl", "{a}").repeat_lines("t", 2);
    }

    #[test]
    #[should_panic(expected = "{a} is given twice")]
    fn refuses_a_value_given_twice() {
        let _ = Template::new("t.wgsl", "{a}")
            .register("a", 1)
            .register("a", 2);
    }

    #[test]
    #[should_panic(expected = "{p} left outside the lines that repeat it")]
    fn refuses_a_marker_outside_its_block() {
        let _ = Template::new("t.wgsl", "// {p} begin\n{p}\n// {p} end\n{p}\n")
            .repeat_block("p", 2)
            .complete();
    }
}
