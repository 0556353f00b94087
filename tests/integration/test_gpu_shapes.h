// The network the GPU path is checked on, shared by the `npusim gpu` test and
// the host-emulation-vs-simulator test.
#pragma once

namespace npusim::test {

// Int8 and binary layers over the shapes the kernels must handle: 1x1, 3x3,
// stride 2, the three padding modes, C = 31, 32, 33, 64, 100, b = 32 and 64,
// and binary layers chained to an int8 one (which then stores signs) and to a
// binary one: they read the simulator's output.
inline const char* kGpuNetwork = R"({"name": "gpu_shapes", "layers": [
  {"type":"conv2d","name":"i8_3x3","C":33,"H":13,"W":11,"K":40,"R":3,"S":3,"padding":1},
  {"type":"conv2d","name":"i8_1x1_s2","C":64,"H":9,"W":9,"K":32,"R":1,"S":1,"stride":2},
  {"type":"conv2d","name":"b_after_i8","dtype":"binary","C":32,"H":5,"W":5,"K":32,"R":3,"S":3,
   "padding":1},
  {"type":"conv2d","name":"b_skip_31","dtype":"binary","C":31,"H":10,"W":9,"K":33,"R":3,"S":3,
   "padding":1},
  {"type":"conv2d","name":"b_plus_32","dtype":"binary","C":32,"H":10,"W":9,"K":64,"R":3,"S":3,
   "padding":1,"binary":{"padding":"plus_one","threshold":2}},
  {"type":"conv2d","name":"b_minus_33_s2","dtype":"binary","C":33,"H":11,"W":11,"K":40,"R":3,
   "S":3,"stride":2,"padding":1,"binary":{"bits":64,"padding":"minus_one"}},
  {"type":"conv2d","name":"b_64_1x1","dtype":"binary","C":64,"H":7,"W":7,"K":70,"R":1,"S":1,
   "binary":{"bits":64}},
  {"type":"conv2d","name":"b_100_bn","dtype":"binary","C":100,"H":8,"W":8,"K":96,"R":3,"S":3,
   "padding":1,"binary":{"batch_norm":{"seed":5}}},
  {"type":"conv2d","name":"b_chained","dtype":"binary","C":96,"H":8,"W":8,"K":32,"R":3,"S":3,
   "padding":1}
]})";

}  // namespace npusim::test
