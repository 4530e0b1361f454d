// The wall's renderer (not a kernel): lit cubes, a ball and a checkered floor, all drawn as
// instances of one cube generated from the vertex index (no vertex buffers), its faces split
// into s x s quads: s = 1 for boxes and the floor (36 vertices), s = S for the ball, which
// pushes the points onto the unit sphere (two draws: the boxes, then the balls). Vertex v of
// an instance: face v / (6 s^2), quad (v / 6) % s^2, corner v % 6 of its two triangles, which
// turn counter-clockwise seen from outside (the faces turned away are culled: every body is
// closed, so they are hidden anyway, and rasterizing them cost a software GPU 40 %).

const S: u32 = 6u;

struct Instance {
    model: mat4x4<f32>,
    color: vec4<f32>,  // w: 0 cube, 1 ball, 2 floor
}

struct Scene {
    view_proj: mat4x4<f32>,
    light: vec4<f32>,
    count: vec4<u32>,
    items: array<Instance, 64>,
}

@group(0) @binding(0) var<uniform> scene: Scene;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
}

fn unit(i: u32) -> vec3<f32> {
    return vec3<f32>(f32(i == 0u), f32(i == 1u), f32(i == 2u));
}

@vertex
fn vs_main(@builtin(vertex_index) v: u32, @builtin(instance_index) k: u32) -> VsOut {
    let item = scene.items[k];
    let ball = item.color.w > 0.5 && item.color.w < 1.5;
    let s = select(1u, S, ball);
    let face = v / (6u * s * s);
    let cell = (v / 6u) % (s * s);
    let corner = v % 6u;
    var offsets = array<vec2<f32>, 6>(
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 0.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(0.0, 0.0), vec2<f32>(1.0, 1.0), vec2<f32>(0.0, 1.0));
    let axis = face % 3u;
    // Mirrored on the three faces that look down an axis, so that every triangle turns
    // counter-clockwise seen from outside: the renderers cull the faces turned away.
    let corner_uv = select(offsets[corner], offsets[corner].yx, face >= 3u);
    let uv = (vec2<f32>(f32(cell % s), f32(cell / s)) + corner_uv) / f32(s) * 2.0 - 1.0;
    let n = unit(axis) * select(-1.0, 1.0, face < 3u);
    var p = n + uv.x * unit((axis + 1u) % 3u) + uv.y * unit((axis + 2u) % 3u);
    var normal = n;
    if (ball) {
        p = normalize(p);
        normal = p;
    }
    let world = item.model * vec4<f32>(p, 1.0);
    var out: VsOut;
    out.clip = scene.view_proj * world;
    out.world = world.xyz;
    out.normal = normalize((item.model * vec4<f32>(normal, 0.0)).xyz);
    out.color = item.color;
    return out;
}

@fragment
fn fs_main(in: VsOut) -> @location(0) vec4<f32> {
    var base = in.color.rgb;
    if (in.color.w > 1.5) {
        let check = (i32(floor(in.world.x * 2.0)) + i32(floor(in.world.z * 2.0))) & 1;
        base = select(vec3<f32>(0.55, 0.57, 0.6), vec3<f32>(0.7, 0.72, 0.75), check == 1);
    }
    let n = normalize(in.normal);
    let diffuse = max(dot(n, scene.light.xyz), 0.0);
    let sky = 0.5 + 0.5 * n.y;
    let lit = base * (0.2 + 0.15 * sky + 0.7 * diffuse);
    return vec4<f32>(pow(lit, vec3<f32>(1.0 / 2.2)), 1.0);
}
