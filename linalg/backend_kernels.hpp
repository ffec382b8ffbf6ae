#pragma once
// Declared once, everywhere: how a kernel family is declared for both backends, how its
// explicit instantiations and its "built without CUDA" stand-ins are generated from that one
// declaration, and how a call site picks the executor's backend. The only place that looks
// at GPUFEM_WITH_CUDA (0 or 1, a compile definition the gpufem_linalg target exports).
//
// A family is ONE list macro in its header, taking the value type, a prefix and a body:
//
//   #define GPUFEM_ELL_KERNELS(V, PREFIX, BODY)
//       /** Writes the length of every row to row_len and returns the longest. */
//       PREFIX index_type ell_row_lengths(const Executor& exec, const Csr<V>& a,
//                                         index_type* row_len) BODY
//       ...                                      (every line continued with a backslash)
//   GPUFEM_DECLARE_KERNELS(GPUFEM_ELL_KERNELS)   // in the header, inside namespace gpufem
//
// and each backend's file instantiates the same list for float and double, inside its own
// namespace (gpufem::kernels::cpu or gpufem::kernels::cuda):
//
//   GPUFEM_INSTANTIATE_KERNELS(GPUFEM_ELL_KERNELS)
//
// Doc comments inside a list are /* */ (a // comment would swallow the continued lines).
// A list of kernels not templated on V takes (PREFIX, BODY) and is declared with
// GPUFEM_DECLARE_PLAIN_KERNELS; a list of per-type overloads takes (V, PREFIX, BODY) and is
// declared with GPUFEM_DECLARE_OVERLOADS. Kernels only one backend has are declared with
// GPUFEM_CPU_KERNELS / GPUFEM_CUDA_KERNELS inside that backend's namespace, or, when not
// templated, written there once with GPUFEM_CUDA_INLINE and GPUFEM_CUDA_BODY. No list may
// carry default arguments (they cannot appear in explicit instantiations).
//
// When CUDA is not built, the kernels::cuda declarations become definitions that throw
// "gpufem was built without CUDA", so no stub file repeats them.
#include <stdexcept>

#include "linalg/executor.hpp"

#ifndef GPUFEM_WITH_CUDA
#error "GPUFEM_WITH_CUDA (0 or 1) is defined by the gpufem_linalg target; link against it"
#endif

namespace gpufem::detail {
/// What every CUDA entry point does when gpufem is built without CUDA.
[[noreturn]] inline void no_cuda() { throw std::runtime_error("gpufem was built without CUDA"); }
}  // namespace gpufem::detail

#if GPUFEM_WITH_CUDA
/// Body of a kernels::cuda declaration: none (cuda/ defines it).
#define GPUFEM_CUDA_BODY ;
/// Body of a noexcept kernels::cuda declaration (a release function): none.
#define GPUFEM_CUDA_NOTHROW_BODY ;
/// Prefix of a kernels::cuda function not templated on V: none.
#define GPUFEM_CUDA_INLINE
#else
#define GPUFEM_CUDA_BODY { ::gpufem::detail::no_cuda(); }
#define GPUFEM_CUDA_NOTHROW_BODY {}
#define GPUFEM_CUDA_INLINE inline
#endif

/// The CPU part of a list templated on V (inside namespace kernels::cpu).
#define GPUFEM_CPU_KERNELS(LIST) LIST(V, template <typename V>, ;)
/// The CUDA part of a list templated on V (inside namespace kernels::cuda).
#define GPUFEM_CUDA_KERNELS(LIST) LIST(V, template <typename V>, GPUFEM_CUDA_BODY)

/// Declares a list templated on V in kernels::cpu and kernels::cuda.
#define GPUFEM_DECLARE_KERNELS(LIST)                                                         \
    namespace kernels::cpu {                                                                 \
    GPUFEM_CPU_KERNELS(LIST)                                                                 \
    }                                                                                        \
    namespace kernels::cuda {                                                                \
    GPUFEM_CUDA_KERNELS(LIST)                                                                \
    }

/// Declares a list of float and double overloads (not templates) in both namespaces.
#define GPUFEM_DECLARE_OVERLOADS(LIST)                                                       \
    namespace kernels::cpu {                                                                 \
    LIST(float, , ;)                                                                         \
    LIST(double, , ;)                                                                        \
    }                                                                                        \
    namespace kernels::cuda {                                                                \
    LIST(float, GPUFEM_CUDA_INLINE, GPUFEM_CUDA_BODY)                                        \
    LIST(double, GPUFEM_CUDA_INLINE, GPUFEM_CUDA_BODY)                                       \
    }

/// Declares a list of kernels not templated on V, LIST(PREFIX, BODY), in both namespaces.
#define GPUFEM_DECLARE_PLAIN_KERNELS(LIST)                                                   \
    namespace kernels::cpu {                                                                 \
    LIST(, ;)                                                                                \
    }                                                                                        \
    namespace kernels::cuda {                                                                \
    LIST(GPUFEM_CUDA_INLINE, GPUFEM_CUDA_BODY)                                               \
    }

/// Explicit instantiations of a list templated on V for float and double, in the backend's
/// own file and namespace.
#define GPUFEM_INSTANTIATE_KERNELS(LIST) LIST(float, template, ;) LIST(double, template, ;)

/// Calls a kernel of the executor's backend: GPUFEM_DISPATCH(exec, ell_fill(exec, a, ell))
/// is ::gpufem::kernels::cuda::ell_fill(exec, a, ell) on a CUDA executor and
/// ::gpufem::kernels::cpu::ell_fill(exec, a, ell) otherwise; an expression with the kernel's
/// result. exec is an Executor (not a pointer); it is evaluated twice.
#define GPUFEM_DISPATCH(exec, call)                                                          \
    ((exec).is_cuda() ? ::gpufem::kernels::cuda::call : ::gpufem::kernels::cpu::call)
