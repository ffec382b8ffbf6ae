#pragma once
// The CPU backend's threads: how many (the process's CPU affinity mask, or --threads), and how
// idle ones wait (passively, so that they do not take a core from another process).
namespace gpufem {

/// Threads the CPU kernels use now (OpenMP's current setting; libgomp starts from the
/// affinity mask unless OMP_NUM_THREADS says otherwise).
int host_threads();

/// Sets the threads of the CPU kernels; throws std::invalid_argument naming --threads unless
/// 1 <= n <= 4096.
void set_host_threads(int n);

/// Makes idle OpenMP threads sleep instead of spinning (OMP_WAIT_POLICY=passive): with a
/// spinning runtime, 2 threads beside one busy process ran CG 2.9x slower than 1 thread on a
/// 2-core machine. libgomp reads the policy only when it is loaded, so when the user has not
/// set OMP_WAIT_POLICY this sets it and executes the program again (/proc/self/exe, the same
/// arguments and environment); returns if that is impossible (then the runtime's default
/// stays). Call before anything with effects outside the process (files, other processes).
void ensure_passive_thread_wait(char** argv);

}  // namespace gpufem
