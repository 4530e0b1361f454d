//! What the wall looks like from an orbiting camera: the scene to draw, and the ray under the
//! mouse for throwing and pushing.

use glam::{DMat4, DVec3, DVec4, Mat4, Vec4};

use super::body::{Body, Shape};
use super::world::World;
use crate::scene::{Instance, Scene, MAX_INSTANCES};

/// A camera orbiting a target point, looking at it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Angle around the vertical axis, rad (0 looks along +z).
    pub yaw: f64,
    /// Angle above the horizon, rad.
    pub pitch: f64,
    /// Distance from the target, m.
    pub distance: f64,
    /// The point looked at, m.
    pub target: DVec3,
    /// Width / height of the canvas.
    pub aspect: f64,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            yaw: -0.55,
            pitch: 0.3,
            distance: 9.0,
            target: DVec3::new(0.0, 1.2, 0.0),
            aspect: 16.0 / 9.0,
        }
    }
}

impl Camera {
    /// The default view, backed off to take in `walls` walls (one behind the other, in
    /// columns past a hundred: [`super::wall`]).
    pub fn for_walls(walls: usize) -> Self {
        let (wide, deep) = super::walls_extent(walls);
        let one = super::walls_extent(1).0;
        let span = deep.max(wide - one);
        Camera {
            distance: 9.0 + 0.9 * span,
            ..Camera::default()
        }
    }

    /// The camera's position, m.
    pub fn eye(&self) -> DVec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + DVec3::new(sy * cp, sp, -cy * cp) * self.distance
    }

    /// Clip from world.
    pub fn view_proj(&self) -> DMat4 {
        // Right-handed, depth 0..1 (WebGPU's clip space; inside WebGL2's -1..1 too).
        let (near, far) = (0.1, 1000.0);
        let f = 1.0 / (0.4f64).tan();
        let proj = DMat4::from_cols(
            DVec4::new(f / self.aspect.max(0.1), 0.0, 0.0, 0.0),
            DVec4::new(0.0, f, 0.0, 0.0),
            DVec4::new(0.0, 0.0, far / (near - far), -1.0),
            DVec4::new(0.0, 0.0, near * far / (near - far), 0.0),
        );
        let eye = self.eye();
        let forward = (self.target - eye).normalize();
        let side = forward.cross(DVec3::Y).normalize();
        let up = side.cross(forward);
        let view = DMat4::from_cols(
            DVec4::new(side.x, up.x, -forward.x, 0.0),
            DVec4::new(side.y, up.y, -forward.y, 0.0),
            DVec4::new(side.z, up.z, -forward.z, 0.0),
            DVec4::new(-side.dot(eye), -up.dot(eye), forward.dot(eye), 1.0),
        );
        proj * view
    }

    /// The ray from the eye through the canvas point (x, y) in -1..1 (y up): origin and unit
    /// direction.
    pub fn ray(&self, x: f64, y: f64) -> (DVec3, DVec3) {
        let inv = self.view_proj().inverse();
        let far = inv.project_point3(DVec3::new(x, y, 1.0));
        let eye = self.eye();
        (eye, (far - eye).normalize())
    }

    /// The scene of `world` seen from this camera, in WebGPU clip space (depth 0..1; the
    /// WebGL2 shader maps it back): one [`Scene`] per [`MAX_INSTANCES`] instances, the floor
    /// first, then the boxes, then the balls (drawn with more vertices).
    pub fn scene(&self, world: &World) -> Vec<Scene> {
        // The floor reaches 20 m past the farthest body, 40 m at least.
        let reach = world.bodies.iter().fold(40.0f64, |r, b| {
            r.max(b.position.x.abs() + 20.0)
                .max(b.position.z.abs() + 20.0)
        }) as f32;
        let floor = Mat4::from_scale_rotation_translation(
            glam::Vec3::new(reach, 0.05, reach),
            glam::Quat::IDENTITY,
            glam::Vec3::new(0.0, -0.05, 0.0),
        );
        let mut all = vec![Instance {
            model: floor.to_cols_array_2d(),
            color: [0.6, 0.6, 0.6, 2.0],
        }];
        let (boxes, balls): (Vec<&Body>, Vec<&Body>) = world
            .bodies
            .iter()
            .partition(|b| matches!(b.shape, Shape::Cube { .. }));
        let first_ball = 1 + boxes.len();
        for body in boxes.into_iter().chain(balls) {
            let (half, kind) = match body.shape {
                Shape::Cube { half } => (half, 0.0),
                Shape::Ball { radius } => (radius, 1.0),
            };
            let model = DMat4::from_scale_rotation_translation(
                DVec3::splat(half),
                body.orientation,
                body.position,
            );
            let [r, g, b] = body.color;
            all.push(Instance {
                model: model.as_mat4().to_cols_array_2d(),
                color: [r, g, b, kind],
            });
        }
        let view_proj = self.view_proj().as_mat4().to_cols_array_2d();
        let light = Vec4::new(-0.4, 0.8, -0.45, 0.0).normalize().to_array();
        all.chunks(MAX_INSTANCES)
            .enumerate()
            .map(|(c, chunk)| {
                let mut instances = [Instance::default(); MAX_INSTANCES];
                instances[..chunk.len()].copy_from_slice(chunk);
                let balls = first_ball
                    .saturating_sub(c * MAX_INSTANCES)
                    .min(chunk.len());
                Scene {
                    view_proj,
                    light,
                    count: [chunk.len() as u32, balls as u32, 0, 0],
                    instances,
                }
            })
            .collect()
    }
}
