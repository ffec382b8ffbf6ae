// Opening cuSPARSE and finding the entry points of CusparseLibrary.
#include "linalg/cuda/cusparse_library.hpp"

#include <string>

#include "linalg/cuda/shared_library.hpp"

namespace gpufem::cuda {
namespace {

CusparseLibrary open_cusparse()
{
    const SharedLibrary library("libcusparse.so." + std::to_string(CUSPARSE_VER_MAJOR),
                                "the cusparse formats and AMG's long-row products");
    CusparseLibrary api;
    library.find(api.create, "cusparseCreate");
    library.find(api.destroy, "cusparseDestroy");
    library.find(api.set_stream, "cusparseSetStream");
    library.find(api.error_string, "cusparseGetErrorString");
    library.find(api.create_csr, "cusparseCreateCsr");
    library.find(api.create_sliced_ell, "cusparseCreateSlicedEll");
    library.find(api.csr_set_pointers, "cusparseCsrSetPointers");
    library.find(api.sp_mat_get_size, "cusparseSpMatGetSize");
    library.find(api.destroy_sp_mat, "cusparseDestroySpMat");
    library.find(api.create_dn_vec, "cusparseCreateDnVec");
    library.find(api.destroy_dn_vec, "cusparseDestroyDnVec");
    library.find(api.spmv_buffer_size, "cusparseSpMV_bufferSize");
    library.find(api.spmv_preprocess, "cusparseSpMV_preprocess");
    library.find(api.spmv, "cusparseSpMV");
    library.find(api.spgemm_create_descr, "cusparseSpGEMM_createDescr");
    library.find(api.spgemm_destroy_descr, "cusparseSpGEMM_destroyDescr");
    library.find(api.spgemm_work_estimation, "cusparseSpGEMM_workEstimation");
    library.find(api.spgemm_compute, "cusparseSpGEMM_compute");
    library.find(api.spgemm_copy, "cusparseSpGEMM_copy");
    return api;  // the library stays open for the process
}

}  // namespace

const CusparseLibrary& cusparse() { return opened_once<CusparseLibrary, open_cusparse>(); }

}  // namespace gpufem::cuda
