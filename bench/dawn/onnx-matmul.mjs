// The ONNX models the peer benchmarks hand to ONNX Runtime, written here as protobuf bytes (no
// `onnx` package needed): a chain of MatMul nodes, Y = (...((X·B)·B)...)·B, `count` of them, on
// float32 inputs X (n x n) and B (n x cols). count = 1 is the one-node MatMul model.
// Shared by bench.mjs here (onnxruntime-node) and bench/peers/peers.js (onnxruntime-web).

// Protobuf wire format: a field is a varint key (field number << 3 | wire type), then a varint
// (type 0) or a length and bytes (type 2).
const varint = (v) => {
  const out = [];
  let x = BigInt(v);
  do {
    let byte = Number(x & 0x7fn);
    x >>= 7n;
    if (x) byte |= 0x80;
    out.push(byte);
  } while (x);
  return out;
};
const utf8 = (s) => [...new TextEncoder().encode(s)];
const int = (field, v) => [...varint(field << 3), ...varint(v)];
const bytes = (field, b) => [...varint((field << 3) | 2), ...varint(b.length), ...b];
const str = (field, s) => bytes(field, utf8(s));

// ValueInfoProto { name = 1; type = 2 } / TypeProto { tensor_type = 1 } /
// TypeProto.Tensor { elem_type = 1 (FLOAT = 1); shape = 2 } / TensorShapeProto { dim = 1 } /
// Dimension { dim_value = 1 }.
const valueInfo = (name, dims) => {
  const shape = dims.flatMap((d) => bytes(1, int(1, d)));
  return [...str(1, name), ...bytes(2, bytes(1, [...int(1, 1), ...bytes(2, shape)]))];
};
// NodeProto { input = 1; output = 2; name = 3; op_type = 4 }.
const node = (op, inputs, output, name) => [...inputs.flatMap((i) => str(1, i)), ...str(2, output), ...str(3, name), ...str(4, op)];
const model = (nodes, inputs, output) => {
  // GraphProto { node = 1; name = 2; input = 11; output = 12 }.
  const graph = [...nodes, ...str(2, "texla_bench"), ...inputs.flatMap((i) => bytes(11, i)), ...bytes(12, output)];
  // ModelProto { ir_version = 1; producer_name = 2; graph = 7; opset_import = 8 } /
  // OperatorSetIdProto { domain = 1; version = 2 }.
  return Uint8Array.from([...int(1, 8), ...str(2, "texla bench"), ...bytes(7, graph), ...bytes(8, [...str(1, ""), ...int(2, 17)])]);
};

/** ModelProto bytes (IR version 8, opset 17) of `count` chained MatMuls: inputs "X" [n, n] and
 *  "B" [n, cols], output "Y" [n, cols]. */
export function matmulChainModel(n, count = 1, cols = n) {
  const nodes = [];
  let x = "X";
  for (let i = 0; i < count; i++) {
    const y = i === count - 1 ? "Y" : `X${i + 1}`;
    nodes.push(...bytes(1, node("MatMul", [x, "B"], y, `matmul${i}`)));
    x = y;
  }
  return model(nodes, [valueInfo("X", [n, n]), valueInfo("B", [n, cols])], valueInfo("Y", [n, cols]));
}

/** ModelProto bytes of one Identity node, "X" [rows, cols] to "Y": with its output kept on the
 *  GPU, how a matrix is uploaded to stay there. */
export function identityModel(rows, cols) {
  return model(bytes(1, node("Identity", ["X"], "Y", "identity")), [valueInfo("X", [rows, cols])], valueInfo("Y", [rows, cols]));
}
