//! A GPU program as data: which kernel, which inputs, which output shape.
//!
//! A [`Kernel`] holds only its math, as a short WGSL body and its GLSL twin in `shaders/`; the
//! shared prelude (`shaders/prelude.*`, `shaders/input.*`) supplies the full-screen triangle,
//! the shape uniforms and the texel fetch helpers. A [`Program`] is one run of a kernel on
//! concrete shapes. Backends turn programs into pipelines; kernels never see wgpu or glow.

use crate::layout::Layout;

/// Most inputs a kernel may read (the shape uniform has one slot per input plus the output).
pub const MAX_INPUTS: usize = 3;

/// A fragment-shader kernel, described once for every backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kernel {
    /// Unique name, also the key of the backends' pipeline caches.
    pub name: &'static str,
    /// Input names; input `a` gets helpers `a_texel(x, y)`, `a_rows()`, `a_cols()`.
    pub inputs: &'static [&'static str],
    /// WGSL body defining `fn kernel(texel: vec2<i32>) -> vec4<f32>`.
    pub wgsl: &'static str,
    /// GLSL ES 3.00 body defining `vec4 kernel(ivec2 texel)`.
    pub glsl: &'static str,
}

impl Kernel {
    /// The complete WGSL module: prelude, one accessor block per input, body.
    pub fn wgsl_source(&self) -> String {
        let mut src = String::from(include_str!("../shaders/prelude.wgsl"));
        self.push_inputs(&mut src, include_str!("../shaders/input.wgsl"));
        src.push('\n');
        src.push_str(self.wgsl);
        src
    }

    /// The complete GLSL ES 3.00 fragment shader: prelude, accessors, body, `main`.
    pub fn glsl_source(&self) -> String {
        let mut src = String::from(include_str!("../shaders/prelude.glsl"));
        self.push_inputs(&mut src, include_str!("../shaders/input.glsl"));
        src.push('\n');
        src.push_str(self.glsl);
        src.push_str(include_str!("../shaders/main.glsl"));
        src
    }

    /// The GLSL ES 3.00 vertex shader shared by every kernel.
    pub fn glsl_vertex_source() -> &'static str {
        include_str!("../shaders/vertex.glsl")
    }

    fn push_inputs(&self, src: &mut String, template: &str) {
        for (i, name) in self.inputs.iter().enumerate() {
            let slot = (i + 1).to_string();
            src.push_str(&template.replace("{name}", name).replace("{slot}", &slot));
        }
    }
}

/// One run of a kernel: the kernel and the shapes of its inputs and output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// The kernel to run.
    pub kernel: Kernel,
    /// Shapes of the inputs, in the order of `kernel.inputs`.
    pub inputs: Vec<Layout>,
    /// Shape of the output; one fragment runs per output texel.
    pub output: Layout,
}

impl Program {
    /// The shape uniform: `(rows, cols, width, height)` of the output, then of each input,
    /// zero-filled to `MAX_INPUTS + 1` slots.
    pub fn shapes(&self) -> [[i32; 4]; MAX_INPUTS + 1] {
        debug_assert_eq!(self.inputs.len(), self.kernel.inputs.len());
        let mut s = [[0; 4]; MAX_INPUTS + 1];
        for (slot, l) in std::iter::once(&self.output)
            .chain(&self.inputs)
            .enumerate()
        {
            s[slot] = [l.rows, l.cols, l.width(), l.height()].map(|v| v as i32);
        }
        s
    }
}

/// `C = A * B`: inputs `a` (m x k) and `b` (k x n), output m x n.
pub const MATMUL: Kernel = Kernel {
    name: "matmul",
    inputs: &["a", "b"],
    wgsl: include_str!("../shaders/matmul.wgsl"),
    glsl: include_str!("../shaders/matmul.glsl"),
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_have_one_accessor_block_per_input() {
        let wgsl = MATMUL.wgsl_source();
        assert!(wgsl.contains("@group(0) @binding(1) var a_tex: texture_2d<f32>;"));
        assert!(wgsl.contains("@group(0) @binding(2) var b_tex: texture_2d<f32>;"));
        assert!(wgsl.contains("fn kernel(texel: vec2<i32>) -> vec4<f32>"));
        assert!(!wgsl.contains("{name}") && !wgsl.contains("{slot}"));
        let glsl = MATMUL.glsl_source();
        assert!(glsl.starts_with("#version 300 es"));
        assert!(glsl.contains("uniform sampler2D b_tex;"));
        assert!(glsl.contains("int a_cols() { return u_shapes[1].y; }"));
        // main() comes after the body so that `kernel` is declared before use.
        assert!(glsl.find("vec4 kernel(").unwrap() < glsl.find("void main()").unwrap());
    }

    #[test]
    fn shape_uniform_lists_output_then_inputs() {
        let p = Program {
            kernel: MATMUL,
            inputs: vec![Layout { rows: 13, cols: 29 }, Layout { rows: 29, cols: 7 }],
            output: Layout { rows: 13, cols: 7 },
        };
        assert_eq!(
            p.shapes(),
            [[13, 7, 7, 4], [13, 29, 29, 4], [29, 7, 7, 8], [0, 0, 0, 0]]
        );
    }
}
