//! [`Kernel`] (a kernel described once for every backend: its WGSL body and GLSL twin) and
//! [`Program`] (one run of a kernel on concrete shapes), with the uniform block they fill.

use std::borrow::Cow;
use std::cell::RefCell;

use super::Template;
use crate::layout::Layout;

/// Most inputs a kernel may read.
pub const MAX_INPUTS: usize = 6;
/// Slots of the shape uniform: the output, the inputs, padding to a power of two.
pub const SHAPE_SLOTS: usize = 8;
/// Scalar parameters a run may pass (`param(i)` in a shader).
pub const MAX_PARAMS: usize = 8;
/// The names inputs get, in order: kernels with n inputs use the first n.
pub const INPUT_NAMES: [&str; MAX_INPUTS] = ["a", "b", "c", "d", "e", "f"];

/// A fragment-shader kernel, described once for every backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// A name for people: debug labels and error messages. Pipelines are cached by
    /// [`Kernel::key`], computed from the sources, so two kernels may share a name.
    pub name: Cow<'static, str>,
    /// Input names; input `a` gets helpers `a_texel(x, y)`, `a_rows()`, `a_cols()`.
    pub inputs: &'static [&'static str],
    /// WGSL body defining `fn kernel(texel: vec2<i32>) -> vec4<f32>`.
    pub wgsl: Cow<'static, str>,
    /// GLSL ES 3.00 body defining `vec4 kernel(ivec2 texel)`.
    pub glsl: Cow<'static, str>,
    /// Render targets written in one pass: 1, or N >= 2 for a kernel returning
    /// `array<vec4<f32>, N>` (GLSL: filling `out vec4 r[N]`).
    pub outputs: usize,
    /// How a compute kernel (WebGPU only; `glsl` is empty) is dispatched. `None` for fragment
    /// kernels.
    pub compute: Option<Compute>,
}

/// How a compute kernel is dispatched, and what it gets beside its textures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compute {
    /// Output texels one workgroup covers, (columns, texel rows): the dispatch is the output's
    /// size divided by this, rounded up.
    pub per_group: (usize, usize),
    /// 32-bit words of zeroed storage (`scratch`, binding 8) each run gets; 0 for none.
    pub scratch_words: usize,
    /// Built natively without wgpu's run-time checks: a kernel of texla's whose every texture
    /// load and store is guarded by the matrices' shapes and whose other indices and loops are
    /// bounded by construction (the product's tiled kernel, where the checks cost 3-4%). A
    /// browser's WebGPU keeps its own checks whatever this says.
    pub unchecked: bool,
}

impl Kernel {
    /// A fragment kernel whose (WGSL, GLSL) bodies are `sources`, made by `library_kernel!`.
    pub(super) fn after_library(
        name: &'static str,
        inputs: &'static [&'static str],
        outputs: usize,
        (wgsl, glsl): (&'static str, &'static str),
    ) -> Kernel {
        Kernel {
            name: Cow::Borrowed(name),
            inputs,
            wgsl: Cow::Borrowed(wgsl),
            glsl: Cow::Borrowed(glsl),
            outputs,
            compute: None,
        }
    }

    /// `library`'s helpers then `body`, each a (WGSL, GLSL) pair, joined for the life of the
    /// program (`library_kernel!` joins each kernel's once).
    pub(super) fn join(library: (&str, &str), body: (&str, &str)) -> (&'static str, &'static str) {
        let joined =
            |a: &str, b: &str| -> &'static str { Box::leak((a.to_owned() + b).into_boxed_str()) };
        (joined(library.0, body.0), joined(library.1, body.1))
    }

    /// The key of the backends' pipeline caches, computed from everything that makes the
    /// pipeline: both sources, the render targets, the dispatch, whether there is scratch
    /// storage (not its size: each run binds a buffer of its own) and the number of inputs.
    /// Equal keys mean the same pipeline, whatever the name (64-bit FNV-1a: collisions are
    /// negligible).
    pub fn key(&self) -> u64 {
        let compute = self.compute.map_or([0; 3], |c| {
            [
                c.per_group.0,
                c.per_group.1,
                usize::from(c.scratch_words > 0),
            ]
            .map(|v| v as u64 + 1)
        });
        let mut hash = Fnv(self.sources_hash());
        for v in [self.outputs as u64, self.inputs.len() as u64]
            .into_iter()
            .chain(compute)
        {
            hash.write(&v.to_le_bytes());
        }
        hash.0
    }

    /// The FNV-1a state after both sources. Hashing takes about 1.6 ns a byte, 39 us for the
    /// product's 24 KB kernel on every pass (most of a product call's CPU part), so sources
    /// that live as long as the program (borrowed `'static` strings: never freed, never moved)
    /// are hashed once and found again by their addresses and lengths.
    fn sources_hash(&self) -> u64 {
        let hash = || {
            let mut hash = Fnv::default();
            hash.write(self.wgsl.as_bytes());
            hash.write(&[0xff]);
            hash.write(self.glsl.as_bytes());
            hash.0
        };
        let (Cow::Borrowed(wgsl), Cow::Borrowed(glsl)) = (&self.wgsl, &self.glsl) else {
            return hash();
        };
        thread_local! {
            static HASHED: RefCell<Vec<([usize; 4], u64)>> = const { RefCell::new(Vec::new()) };
        }
        let at = [
            wgsl.as_ptr() as usize,
            wgsl.len(),
            glsl.as_ptr() as usize,
            glsl.len(),
        ];
        HASHED.with_borrow_mut(|hashed| match hashed.iter().find(|(a, _)| *a == at) {
            Some(&(_, h)) => h,
            None => {
                let h = hash();
                hashed.push((at, h));
                h
            }
        })
    }

    /// The complete WGSL module: prelude, one accessor block per input, body. Natively a body's
    /// first lines that are `enable` directives (WGSL wants them before any declaration; only
    /// the tensor-core product has any, and the wasm build leaves this out) go first.
    pub fn wgsl_source(&self) -> String {
        let (enables, body) = if cfg!(target_arch = "wasm32") {
            ("", &*self.wgsl)
        } else {
            let mut end = 0;
            while self.wgsl[end..].starts_with("enable ") {
                end += self.wgsl[end..]
                    .find('\n')
                    .map_or(self.wgsl.len() - end, |e| e + 1);
            }
            self.wgsl.split_at(end)
        };
        let mut src = enables.to_owned();
        src.push_str(&self.wgsl_head());
        src.push_str(body);
        if self.compute.is_some() {
            src.push_str(include_str!("../../shaders/prelude/main_compute.wgsl"));
        } else if self.outputs >= 2 {
            let n = self.outputs;
            let fields: Vec<String> = (0..n)
                .map(|i| format!("    @location({i}) o{i}: vec4<f32>,"))
                .collect();
            let values: Vec<String> = (0..n).map(|i| format!("r[{i}]")).collect();
            src.push_str(
                &template!("prelude/main_multi.wgsl")
                    .register("count", n)
                    .register("fields", fields.join("\n"))
                    .register("values", values.join(", "))
                    .complete(),
            );
        } else {
            src.push_str(include_str!("../../shaders/prelude/main.wgsl"));
        }
        src
    }

    /// The complete GLSL ES 3.00 fragment shader: prelude, accessors, body, `main`.
    pub fn glsl_source(&self) -> String {
        let mut src = self.glsl_head();
        src.push_str(&self.glsl);
        if self.outputs >= 2 {
            let n = self.outputs;
            let outs: Vec<String> = (0..n)
                .map(|i| format!("layout(location = {i}) out vec4 out_{i};"))
                .collect();
            let assign: Vec<String> = (0..n).map(|i| format!("    out_{i} = r[{i}];")).collect();
            src.push_str(
                &template!("prelude/main_multi.glsl")
                    .register("count", n)
                    .register("outs", outs.join("\n"))
                    .register("assign", assign.join("\n"))
                    .complete(),
            );
        } else {
            src.push_str(include_str!("../../shaders/prelude/main.glsl"));
        }
        src
    }

    /// The GLSL ES 3.00 vertex shader shared by every kernel.
    pub fn glsl_vertex_source() -> &'static str {
        include_str!("../../shaders/prelude/vertex.glsl")
    }

    /// One accessor block per input, from `template` (`prelude/input.*`).
    /// What comes before the WGSL body: the prelude and one accessor block per input.
    pub(super) fn wgsl_head(&self) -> String {
        let mut src = String::from(include_str!("../../shaders/prelude/prelude.wgsl"));
        self.push_inputs(&mut src, template!("prelude/input.wgsl"));
        src.push('\n');
        src
    }

    /// What comes before the GLSL body: the prelude and one accessor block per input.
    pub(super) fn glsl_head(&self) -> String {
        let mut src = String::from(include_str!("../../shaders/prelude/prelude.glsl"));
        self.push_inputs(&mut src, template!("prelude/input.glsl"));
        src.push('\n');
        src
    }

    fn push_inputs(&self, src: &mut String, template: Template) {
        for (i, name) in self.inputs.iter().enumerate() {
            let block = template
                .clone()
                .register("name", name)
                .register("slot", i + 1);
            src.push_str(&block.complete());
        }
    }
}

/// One run of a kernel: the kernel, the shapes of its inputs and output, its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The kernel to run.
    pub kernel: Kernel,
    /// Shapes of the inputs, in the order of `kernel.inputs`.
    pub inputs: Vec<Layout>,
    /// Shape of the output; one fragment runs per output texel.
    pub output: Layout,
    /// Scalar parameters, read in shaders as `param(i)`.
    pub params: [f32; MAX_PARAMS],
    /// A compute kernel's workgroups where they are not the output's size divided by
    /// [`Compute::per_group`] (one per island of contacts); `None` for that rule.
    pub workgroups: Option<usize>,
}

/// The uniform block every kernel reads, laid out as the shaders declare it (std140-compatible).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Uniforms {
    /// `(rows, cols, width, height)` of the output (slot 0) and of each input (1..).
    pub shapes: [[i32; 4]; SHAPE_SLOTS],
    /// `param(i)` is `params[i / 4][i % 4]`.
    pub params: [[f32; 4]; MAX_PARAMS / 4],
}

impl Program {
    /// A run of `kernel` without parameters.
    pub fn new(kernel: Kernel, inputs: Vec<Layout>, output: Layout) -> Self {
        debug_assert!(kernel.inputs.len() <= MAX_INPUTS);
        Program {
            kernel,
            inputs,
            output,
            params: [0.0; MAX_PARAMS],
            workgroups: None,
        }
    }

    /// The same run dispatched as `n` workgroups, whatever the output's size.
    pub fn with_workgroups(mut self, n: usize) -> Self {
        self.workgroups = Some(n);
        self
    }

    /// The same run with parameters `params` (the rest zero).
    pub fn with_params(mut self, params: &[f32]) -> Self {
        self.params[..params.len()].copy_from_slice(params);
        self
    }

    /// The uniform block of this run.
    pub fn uniforms(&self) -> Uniforms {
        debug_assert_eq!(self.inputs.len(), self.kernel.inputs.len());
        let mut shapes = [[0; 4]; SHAPE_SLOTS];
        for (slot, l) in std::iter::once(&self.output)
            .chain(&self.inputs)
            .enumerate()
        {
            shapes[slot] = [l.rows, l.cols, l.width(), l.height()].map(|v| v as i32);
        }
        let mut params = [[0.0; 4]; MAX_PARAMS / 4];
        for (i, &p) in self.params.iter().enumerate() {
            params[i / 4][i % 4] = p;
        }
        Uniforms { shapes, params }
    }
}

/// 64-bit FNV-1a, for [`Kernel::key`]: the same on every run and platform.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}
