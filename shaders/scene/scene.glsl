// The wall's renderer, GLSL ES 3.00 (WebGL2): the twin of scene.wgsl. The backend compiles it
// twice, with `#define VERTEX` or `#define FRAGMENT` after the version line.
precision highp float;
precision highp int;

const uint S = 6u;

struct Instance {
    mat4 model;
    vec4 color;  // w: 0 cube, 1 ball, 2 floor
};

layout(std140) uniform Scene {
    mat4 view_proj;
    vec4 light;
    uvec4 count;
    Instance items[64];
};

vec3 unit(uint i) {
    return vec3(float(i == 0u), float(i == 1u), float(i == 2u));
}

#ifdef VERTEX
out vec3 v_world;
out vec3 v_normal;
out vec4 v_color;

void main() {
    Instance item = items[gl_InstanceID + int(count.z)];
    bool ball = item.color.w > 0.5 && item.color.w < 1.5;
    uint s = ball ? S : 1u;
    uint v = uint(gl_VertexID);
    uint face = v / (6u * s * s);
    uint cell = (v / 6u) % (s * s);
    uint corner = v % 6u;
    vec2 offsets[6] = vec2[6](vec2(0.0, 0.0), vec2(1.0, 0.0), vec2(1.0, 1.0),
                              vec2(0.0, 0.0), vec2(1.0, 1.0), vec2(0.0, 1.0));
    uint axis = face % 3u;
    // Mirrored on the three faces that look down an axis, so that every triangle turns
    // counter-clockwise seen from outside: the renderers cull the faces turned away.
    vec2 corner_uv = face >= 3u ? offsets[corner].yx : offsets[corner];
    vec2 uv = (vec2(float(cell % s), float(cell / s)) + corner_uv) / float(s) * 2.0 - 1.0;
    vec3 n = unit(axis) * (face < 3u ? 1.0 : -1.0);
    vec3 p = n + uv.x * unit((axis + 1u) % 3u) + uv.y * unit((axis + 2u) % 3u);
    vec3 normal = n;
    if (ball) {
        p = normalize(p);
        normal = p;
    }
    vec4 world = item.model * vec4(p, 1.0);
    gl_Position = view_proj * world;
    v_world = world.xyz;
    v_normal = normalize((item.model * vec4(normal, 0.0)).xyz);
    v_color = item.color;
}
#endif

#ifdef FRAGMENT
in vec3 v_world;
in vec3 v_normal;
in vec4 v_color;
out vec4 color;

void main() {
    vec3 base = v_color.rgb;
    if (v_color.w > 1.5) {
        int check = (int(floor(v_world.x * 2.0)) + int(floor(v_world.z * 2.0))) & 1;
        base = check == 1 ? vec3(0.7, 0.72, 0.75) : vec3(0.55, 0.57, 0.6);
    }
    vec3 n = normalize(v_normal);
    float diffuse = max(dot(n, light.xyz), 0.0);
    float sky = 0.5 + 0.5 * n.y;
    vec3 lit = base * (0.2 + 0.15 * sky + 0.7 * diffuse);
    color = vec4(pow(lit, vec3(1.0 / 2.2)), 1.0);
}
#endif
