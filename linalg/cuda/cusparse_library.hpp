#pragma once
// cuSPARSE opened at first use rather than linked: loading it (and the nvJitLink library it
// needs, 100 MB with 140,000 relocations) cost every run's start-up, while only the cusparse
// formats and AMG's products of long rows call it. CUDA sources only.
#include <cusparse.h>

namespace gpufem::cuda {

/// The cuSPARSE entry points gpufem calls, from libcusparse.so.<major of the headers>.
struct CusparseLibrary {
    decltype(&cusparseCreate) create = nullptr;
    decltype(&cusparseDestroy) destroy = nullptr;
    decltype(&cusparseSetStream) set_stream = nullptr;
    decltype(&cusparseGetErrorString) error_string = nullptr;
    decltype(&cusparseCreateCsr) create_csr = nullptr;
    decltype(&cusparseCreateSlicedEll) create_sliced_ell = nullptr;
    decltype(&cusparseCsrSetPointers) csr_set_pointers = nullptr;
    decltype(&cusparseSpMatGetSize) sp_mat_get_size = nullptr;
    decltype(&cusparseDestroySpMat) destroy_sp_mat = nullptr;
    decltype(&cusparseCreateDnVec) create_dn_vec = nullptr;
    decltype(&cusparseDestroyDnVec) destroy_dn_vec = nullptr;
    decltype(&cusparseSpMV_bufferSize) spmv_buffer_size = nullptr;
    decltype(&cusparseSpMV_preprocess) spmv_preprocess = nullptr;
    decltype(&cusparseSpMV) spmv = nullptr;
    decltype(&cusparseSpGEMM_createDescr) spgemm_create_descr = nullptr;
    decltype(&cusparseSpGEMM_destroyDescr) spgemm_destroy_descr = nullptr;
    decltype(&cusparseSpGEMM_workEstimation) spgemm_work_estimation = nullptr;
    decltype(&cusparseSpGEMM_compute) spgemm_compute = nullptr;
    decltype(&cusparseSpGEMM_copy) spgemm_copy = nullptr;
};

/// The library, opened on the first call (thread-safe); a failure to open it or to find an
/// entry point throws std::runtime_error, again on every later call.
const CusparseLibrary& cusparse();

}  // namespace gpufem::cuda
