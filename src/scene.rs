//! What to draw: neutral data that physics fills in and each backend's renderer reads.
//!
//! A [`Scene`] is the uniform block of `shaders/scene.*` (std140): the camera, the light and up
//! to [`MAX_INSTANCES`] boxes or balls; a larger world is drawn as several, one draw each. It
//! names no backend and no physics type.

/// Most instances one [`Scene`] draws.
pub const MAX_INSTANCES: usize = 64;

/// One frame of the wall to draw: the uniform block of `shaders/scene.*`, std140 layout.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Scene {
    /// Clip from world, column-major.
    pub view_proj: [[f32; 4]; 4],
    /// Direction towards the light (xyz, unit), w unused.
    pub light: [f32; 4],
    /// x: instances used in `instances`; y: the first ball among them (the boxes and the
    /// floor come first); z: the index of the instance drawn first (`gl_InstanceID` counts from
    /// 0 in WebGL2, so its renderer sets z to y for the second draw); w unused.
    pub count: [u32; 4],
    /// The boxes, the ball and the floor.
    pub instances: [Instance; MAX_INSTANCES],
}

/// A box or ball to draw: the unit cube [-1, 1]^3 (or the unit ball) through `model`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Instance {
    /// World from model, column-major (scale included).
    pub model: [[f32; 4]; 4],
    /// Linear RGB, and in w the kind: 0 a cube, 1 a ball, 2 the checkered floor.
    pub color: [f32; 4],
}

/// Vertices drawn per box: 6 faces of 2 triangles.
pub const BOX_VERTICES: u32 = 6 * 6;
/// Vertices drawn per ball: a cube of 6 faces of `BALL_SEGMENTS x BALL_SEGMENTS` quads pushed
/// onto the sphere (`S` in the shaders).
pub const BALL_VERTICES: u32 = 6 * 6 * BALL_SEGMENTS * BALL_SEGMENTS;
const BALL_SEGMENTS: u32 = 6;
