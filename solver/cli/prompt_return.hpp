#pragma once
// The prompt back before the process's teardown. Ending a process that holds a CUDA context
// takes the driver about 0.1 s after the last output (the context and its memory released),
// which the user waits for at the prompt. detach_teardown splits the process: the child runs
// gpufem as before; the process the shell started waits for the child's exit code and ends
// with it as soon as the child has written its last output (return_exit_code), leaving the
// child to release the device beside the prompt. A child that ends without sending its code
// (a crash, std::exit, a signal) is waited for and its way of ending repeated, and the
// signals that end a run (SIGINT, SIGTERM, SIGHUP, SIGQUIT) sent to the waiting process are
// passed on to the child and waited for, so that its clean-up (no partial outputs) is done
// when the shell sees the end.

namespace gpufem {

/// Splits the process as above (once; before any thread or device context exists, with stdout
/// and stderr flushed). Returns in the child; the waiting process never returns from it. Does
/// nothing under a CUDA sanitizer or profiler (CUDA_INJECTION64_PATH set) or where the fork
/// fails (the run goes on in one process).
void detach_teardown();

/// In the child of detach_teardown: hands the device memory kept in the process's pools back
/// (a run started at the prompt finds it free), flushes stdout and stderr, points them at
/// /dev/null (a reader of gpufem's output sees its end now) and sends code to the waiting
/// process, which ends with it. Returns code; without detach_teardown, returns code and does
/// nothing else.
int return_exit_code(int code);

}  // namespace gpufem
