#!/usr/bin/env node
// Runs tiny ONNX models through ONNX Runtime (CPU execution provider) for
// tools/ort-vectors. Usage:
//
//   node tools/ort/run_model.js MANIFEST.json > RESULTS.json
//
// MANIFEST: {"optimization_levels": ["disabled", "all"],
//            "cases": [{"name": ..., "model": "path/to/model.onnx",
//                       "feeds": {"x": {"dtype": "uint8", "shape": [..], "data": [..]}}}]}
// RESULTS:  {"onnxruntime": "<version>",
//            "cases": [{"name": ..., "runs": {"<level>": {"dtype", "shape", "data",
//                                                         "outputs": {name: {...}}}}}]}
//            (dtype/shape/data: the first output; "outputs": every output by name)
// Large tensors as raw bytes instead of JSON numbers (tools/quantize's calibration: every
// activation of a model): a feed may give "file" (its data, little-endian, in its dtype)
// instead of "data", and a manifest that names "outputs_to": DIR gets every output written
// there as C_L_O.bin (case, level and output index) and named by "file" instead of "data".
// Each case runs once per graph optimisation level, single-threaded, so the
// caller can check that the optimised graph (e.g. the NHWC rewrite of the
// quantised ops) computes the same bits as the plain kernels.
'use strict';

const fs = require('fs');
const ort = require('onnxruntime-node');

const ARRAYS = {int8: Int8Array, uint8: Uint8Array, int32: Int32Array, float32: Float32Array};

// One session per level, kept while the cases run the same model: creating one costs far more
// than a run (9 s against 0.2 s for a float VGG-11), and calibration runs one model per batch.
const sessions = {};

async function sessionFor(model, level) {
  const kept = sessions[level];
  if (kept !== undefined && kept.model === model) return kept.session;
  if (kept !== undefined && typeof kept.session.release === 'function') await kept.session.release();
  delete sessions[level];
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: level,
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
  });
  sessions[level] = {model, session};
  return session;
}

async function runCase(c, level, where) {
  const session = await sessionFor(c.model, level);
  const feeds = {};
  for (const [name, t] of Object.entries(c.feeds)) {
    const Array_ = ARRAYS[t.dtype];
    if (!Array_) throw new Error(`${c.name}: unsupported feed dtype ${t.dtype}`);
    let data;
    if (t.file !== undefined) {
      const bytes = fs.readFileSync(t.file);
      data = new Array_(bytes.buffer, bytes.byteOffset, bytes.byteLength / Array_.BYTES_PER_ELEMENT);
    } else {
      data = Array_.from(t.data);
    }
    feeds[name] = new ort.Tensor(t.dtype, data, t.shape);
  }
  const outputs = await session.run(feeds);
  const asJson = (t) => ({dtype: t.type, shape: Array.from(t.dims, Number), data: Array.from(t.data, Number)});
  const asFile = (t, index) => {
    if (t.type === 'string') throw new Error(`${c.name}: a string output cannot be written as bytes`);
    const file = `${where.dir}/${where.caseIndex}_${level}_${index}.bin`;
    fs.writeFileSync(file, Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength));
    return {dtype: t.type, shape: Array.from(t.dims, Number), file};
  };
  const describe = (t, index) => (where.dir === undefined ? asJson(t) : asFile(t, index));
  // Every output by name (tools/ort-compare reads these), each described (or written) once;
  // the first is also the result's own dtype, shape and data.
  const byName = {};
  session.outputNames.forEach((name, index) => { byName[name] = describe(outputs[name], index); });
  return {...byName[session.outputNames[0]], outputs: byName};
}

async function main() {
  if (process.argv.length !== 3) {
    process.stderr.write('usage: node run_model.js MANIFEST.json\n');
    process.exit(2);
  }
  const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const [caseIndex, c] of manifest.cases.entries()) {
    const runs = {};
    for (const level of manifest.optimization_levels) {
      try {
        runs[level] = await runCase(c, level, {dir: manifest.outputs_to, caseIndex});
      } catch (e) {
        runs[level] = {error: String(e && e.message ? e.message : e)};
      }
    }
    results.push({name: c.name, runs});
  }
  process.stdout.write(JSON.stringify({onnxruntime: ort.env.versions.node, cases: results}));
}

main().catch((e) => {
  process.stderr.write(`run_model.js: ${e && e.stack ? e.stack : e}\n`);
  process.exit(1);
});
