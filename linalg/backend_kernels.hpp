#pragma once
// Declared once, everywhere: how a kernel family is declared for both backends, how its
// explicit instantiations and its "built without CUDA" stand-ins come from that one
// declaration, and how a call site picks the executor's backend. The only place that looks
// at GPUFEM_WITH_CUDA (0 or 1, a compile definition the gpufem_linalg target exports).
//
// A family's kernels are ordinary declarations, each with its /// comment, in a list file
// next to the family's header, FAMILY_kernel_list.hpp. It has no include guard and includes
// nothing: it is read twice, once in each backend's namespace. Every declaration ends with
// GPUFEM_KERNEL_BODY instead of the semicolon:
//
//   /// Writes the length of every row to row_len (rows entries) and returns the longest.
//   /// cuda: a length kernel and a CUB max-reduction; the width is read back.
//   template <typename V>
//   index_type ell_row_lengths(const Executor& exec, const Csr<V>& a, index_type* row_len)
//       GPUFEM_KERNEL_BODY
//
// The family's header declares the list for both backends, inside namespace gpufem:
//
//   #define GPUFEM_KERNEL_LIST "linalg/ell_kernel_list.hpp"
//   #include "linalg/declare_kernels.hpp"
//
// declare_kernels.hpp reads the list in namespace kernels::cpu, where GPUFEM_KERNEL_BODY is
// `;`, and in kernels::cuda, where it is `;` when CUDA is built and otherwise a definition that
// throws "gpufem was built without CUDA" (so no stub file repeats the signatures).
//
// Each backend's file defines the templates in its own namespace (gpufem::kernels::cpu or
// gpufem::kernels::cuda) and instantiates them for float and double by name; the signatures
// come from the declarations (decltype), so they are not written again:
//
//   GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(ell_row_lengths, ell_fill, ell_spmv)
//
// What a list may hold:
// - templates over the value type, `template <typename V>`, instantiated with
//   GPUFEM_INSTANTIATE_FOR_VALUE_TYPES;
// - templates over the value type and a CSR matrix's row offset type O (Csr<V, O>, or a
//   const O* row_ptr), `template <typename V, typename O>`, for a kernel that takes 32-bit
//   (index_type) and 64-bit (wide_offset_type) offsets alike; instantiated for both with
//   GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES;
// - functions that are not templates, starting with GPUFEM_KERNEL_INLINE (the throwing
//   stand-in defined in a header must be inline); they need no instantiation.
// One declaration per name: decltype(name<float>) names one function only when the name is
// not overloaded (a kernel for both offset widths takes O instead). No default arguments (a
// list is declared twice).
//
// Kernels only one backend has are declared directly in that backend's namespace: in
// kernels::cpu as ordinary declarations; in kernels::cuda ending with GPUFEM_CUDA_BODY (a
// noexcept release function: GPUFEM_CUDA_NOTHROW_BODY) and, when not a template, starting
// with GPUFEM_CUDA_INLINE. Their templates are instantiated in the backend's file as above.
//
// Call sites use GPUFEM_DISPATCH(exec, kernel(exec, ...)).
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

/// Explicit instantiations, for float and double, of kernels templated on the value type,
/// by name, in the backend's own file and namespace:
/// GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(ell_row_lengths, ell_fill, ell_spmv).
#define GPUFEM_INSTANTIATE_FOR_VALUE_TYPES(...)                                              \
    GPUFEM_FOR_EACH(GPUFEM_DETAIL_INSTANTIATE_V, __VA_ARGS__)

/// Explicit instantiations of kernels templated on the value type V and the row offset type
/// O, by name: V float or double, O index_type or wide_offset_type.
#define GPUFEM_INSTANTIATE_FOR_VALUE_AND_OFFSET_TYPES(...)                                   \
    GPUFEM_FOR_EACH(GPUFEM_DETAIL_INSTANTIATE_V_O, __VA_ARGS__)

/// One explicit instantiation, its type taken from the declaration in scope.
#define GPUFEM_DETAIL_INSTANTIATE(name, ...) template decltype(name<__VA_ARGS__>) name<__VA_ARGS__>;
#define GPUFEM_DETAIL_INSTANTIATE_V(name)                                                    \
    GPUFEM_DETAIL_INSTANTIATE(name, float) GPUFEM_DETAIL_INSTANTIATE(name, double)
#define GPUFEM_DETAIL_INSTANTIATE_V_O(name)                                                  \
    GPUFEM_DETAIL_INSTANTIATE(name, float, ::gpufem::index_type)                             \
    GPUFEM_DETAIL_INSTANTIATE(name, double, ::gpufem::index_type)                            \
    GPUFEM_DETAIL_INSTANTIATE(name, float, ::gpufem::wide_offset_type)                       \
    GPUFEM_DETAIL_INSTANTIATE(name, double, ::gpufem::wide_offset_type)

/// GPUFEM_FOR_EACH(M, a, b, c) is M(a) M(b) M(c), for up to 40 arguments: each rescan of
/// GPUFEM_DETAIL_EXPAND peels one argument off.
#define GPUFEM_FOR_EACH(M, ...)                                                              \
    __VA_OPT__(GPUFEM_DETAIL_EXPAND(GPUFEM_DETAIL_FOR_EACH(M, __VA_ARGS__)))
#define GPUFEM_DETAIL_FOR_EACH(M, first, ...)                                                \
    M(first) __VA_OPT__(GPUFEM_DETAIL_FOR_EACH_AGAIN GPUFEM_DETAIL_PARENS(M, __VA_ARGS__))
#define GPUFEM_DETAIL_FOR_EACH_AGAIN() GPUFEM_DETAIL_FOR_EACH
#define GPUFEM_DETAIL_PARENS ()
#define GPUFEM_DETAIL_EXPAND(...) GPUFEM_DETAIL_X1(GPUFEM_DETAIL_X1(GPUFEM_DETAIL_X1(__VA_ARGS__)))
#define GPUFEM_DETAIL_X1(...) GPUFEM_DETAIL_X2(GPUFEM_DETAIL_X2(GPUFEM_DETAIL_X2(__VA_ARGS__)))
#define GPUFEM_DETAIL_X2(...) GPUFEM_DETAIL_X3(GPUFEM_DETAIL_X3(GPUFEM_DETAIL_X3(__VA_ARGS__)))
#define GPUFEM_DETAIL_X3(...) __VA_ARGS__

/// Calls a kernel of the executor's backend: GPUFEM_DISPATCH(exec, ell_fill(exec, a, ell))
/// is ::gpufem::kernels::cuda::ell_fill(exec, a, ell) on a CUDA executor and
/// ::gpufem::kernels::cpu::ell_fill(exec, a, ell) otherwise; an expression with the kernel's
/// result. exec is an Executor (not a pointer); it is evaluated twice.
#define GPUFEM_DISPATCH(exec, call)                                                          \
    ((exec).is_cuda() ? ::gpufem::kernels::cuda::call : ::gpufem::kernels::cpu::call)
