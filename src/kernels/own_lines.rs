//! A kernel's own lines: its body without the library of helpers its family puts before it (the
//! expression functions of every element-wise kernel, the float-float arithmetic, the contact
//! layout). The tutorial shows them first, and folds the rest of the module away.

use super::elementwise::FUNCTIONS;
use super::float_float::FF;
use super::lcp::CONTACT_LAYOUT;
use super::Kernel;

/// The helper libraries some kernel families put before their body, as (WGSL, GLSL).
const LIBRARIES: [(&str, &str); 3] = [FUNCTIONS, FF, CONTACT_LAYOUT];

impl Kernel {
    /// The kernel's own WGSL lines: its body less a shared helper library, a part of
    /// [`Kernel::wgsl_source`] (which puts the prelude, the inputs' accessors and that library
    /// before it, and the entry point after).
    pub fn own_wgsl(&self) -> &str {
        own(&self.wgsl, LIBRARIES.map(|(wgsl, _)| wgsl))
    }

    /// The kernel's own GLSL ES 3.00 lines (empty for a compute kernel), as [`Kernel::own_wgsl`].
    pub fn own_glsl(&self) -> &str {
        own(&self.glsl, LIBRARIES.map(|(_, glsl)| glsl))
    }
}

/// `body` less the first of `libraries` it starts with, and the blank lines after it.
fn own<'a>(body: &'a str, libraries: [&str; 3]) -> &'a str {
    libraries
        .iter()
        .find_map(|library| body.strip_prefix(library))
        .map_or(body, |rest| rest.trim_start_matches('\n'))
}

#[cfg(test)]
mod tests {
    use crate::kernels::{ff_matmul, map, Expr, Reduction, MATMUL};

    #[test]
    fn own_lines_are_the_body_less_its_library_and_lie_in_the_module() {
        let add = map(&Expr::parse("a + b").unwrap());
        for (own, source, body) in [
            (add.own_wgsl(), add.wgsl_source(), &add.wgsl),
            (add.own_glsl(), add.glsl_source(), &add.glsl),
        ] {
            assert!(
                own.contains("fn kernel") || own.contains("vec4 kernel"),
                "{own}"
            );
            assert!(own.lines().count() < 10, "the library is left out: {own}");
            assert!(body.len() > 10 * own.len());
            assert_eq!(source.matches(own).count(), 1);
        }
        for kernel in [MATMUL, Reduction::Sum.pass()] {
            assert_eq!(kernel.own_wgsl(), kernel.wgsl);
            assert_eq!(kernel.own_glsl(), kernel.glsl);
        }
        assert!(ff_matmul().own_wgsl().len() < ff_matmul().wgsl.len());
        assert!(ff_matmul().wgsl_source().contains(ff_matmul().own_wgsl()));
    }
}
