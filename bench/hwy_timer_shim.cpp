// For bench/op_cost.py on CPUs where valgrind 3.19 cannot decode RDTSCP (seen on an AMD Zen 5
// VM: "vex amd64->IR: unhandled instruction bytes: 0xF 0x1 0xF9", then SIGILL). Highway's
// start-up calibrates its timer with that instruction; preloading this library replaces the
// calibration, which tensora never uses, so the run reaches the measured calls:
//
//   g++ -shared -fPIC -O1 -o /tmp/hwy_timer_shim.so bench/hwy_timer_shim.cpp
//   LD_PRELOAD=/tmp/hwy_timer_shim.so /usr/bin/python3 bench/op_cost.py build/bench/tensora_op_cost
#include <cstdint>

namespace hwy::platform {
std::uint64_t TimerResolution() { return 1; }
double InvariantTicksPerSecond() { return 1e9; }
}  // namespace hwy::platform
