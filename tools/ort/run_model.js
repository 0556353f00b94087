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
// Each case runs once per graph optimisation level, single-threaded, so the
// caller can check that the optimised graph (e.g. the NHWC rewrite of the
// quantised ops) computes the same bits as the plain kernels.
'use strict';

const fs = require('fs');
const ort = require('onnxruntime-node');

const ARRAYS = {int8: Int8Array, uint8: Uint8Array, int32: Int32Array, float32: Float32Array};

async function runCase(c, level) {
  const session = await ort.InferenceSession.create(c.model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: level,
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    logSeverityLevel: 3,
  });
  const feeds = {};
  for (const [name, t] of Object.entries(c.feeds)) {
    const Array_ = ARRAYS[t.dtype];
    if (!Array_) throw new Error(`${c.name}: unsupported feed dtype ${t.dtype}`);
    feeds[name] = new ort.Tensor(t.dtype, Array_.from(t.data), t.shape);
  }
  const outputs = await session.run(feeds);
  const asJson = (t) => ({dtype: t.type, shape: Array.from(t.dims, Number), data: Array.from(t.data, Number)});
  const y = outputs[session.outputNames[0]];
  const result = asJson(y);
  // Every output by name (tools/ort-compare reads these; the first is also above).
  result.outputs = {};
  for (const name of session.outputNames) result.outputs[name] = asJson(outputs[name]);
  if (typeof session.release === 'function') await session.release();
  return result;
}

async function main() {
  if (process.argv.length !== 3) {
    process.stderr.write('usage: node run_model.js MANIFEST.json\n');
    process.exit(2);
  }
  const manifest = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const results = [];
  for (const c of manifest.cases) {
    const runs = {};
    for (const level of manifest.optimization_levels) {
      try {
        runs[level] = await runCase(c, level);
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
