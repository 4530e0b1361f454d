// What Dawn's adapter offers here, with and without Dawn's `allow_unsafe_apis` toggle: its
// features (subgroups, shader-f16, chromium-experimental-subgroup-matrix), the subgroup sizes,
// and the subgroup-matrix configurations (component and result types, M x N x K: the
// cooperative matrices of the tensor cores), and whether a device with those features opens.
// No texla; prints JSON lines.
//
//   node adapter.mjs
import { arg } from "./dawn.mjs";

const webgpu = await import("webgpu");
const wanted = ["subgroups", "subgroup-size-control", "shader-f16", "chromium-experimental-subgroup-matrix", "timestamp-query"];
for (const flags of ["", arg("flags", "enable-dawn-features=allow_unsafe_apis")]) {
  const gpu = webgpu.create(flags ? flags.split(";") : []);
  const adapter = await gpu.requestAdapter({ powerPreference: "high-performance" });
  if (!adapter) {
    console.log(JSON.stringify({ flags, adapter: null }));
    continue;
  }
  const info = adapter.info ?? {};
  const features = [...adapter.features].sort();
  const configs = (info.subgroupMatrixConfigs ?? []).map((c) => ({ component: c.componentType, result: c.resultComponentType, M: c.M, N: c.N, K: c.K }));
  const asked = wanted.filter((f) => adapter.features.has(f));
  let device = null;
  try {
    const d = await adapter.requestDevice({ requiredFeatures: asked });
    device = { opened: true, features: [...d.features].filter((f) => wanted.includes(f)).sort() };
    d.destroy();
  } catch (e) {
    device = { opened: false, error: String(e?.message ?? e) };
  }
  console.log(
    JSON.stringify({
      flags,
      adapter: { vendor: info.vendor, architecture: info.architecture, description: info.description, subgroupMinSize: info.subgroupMinSize, subgroupMaxSize: info.subgroupMaxSize },
      offered: wanted.map((f) => [f, adapter.features.has(f)]),
      subgroupMatrixConfigs: configs,
      device,
      allFeatures: features,
    }),
  );
}
process.exit(0);
