#pragma once
// `gpufem bench spmv --csr-sweep`: the exhaustive search of Reguly & Giles 2012 (§5) over the
// parametrised CSR kernel's coop x repeat x block space on the case's matrix, against the fixed
// rule (§5.4) and the run-time tuner (§6) as linalg/csr_tuned_operator.hpp applies them, to
// check the paper's claims on this device (the fixed rule 84% of the optimum on average over
// its 15 training matrices and 73% over all 44, single precision, "similar" in double; the
// tuner within 2% of the exhaustive search).
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "linalg/csr.hpp"
#include "linalg/csr_tuning.hpp"
#include "linalg/executor.hpp"
#include "solver/bench/bench_spmv.hpp"

namespace gpufem {

/// Block sizes the sweep tries: 64 to 512 in steps of 32, the tuner's range and step (it
/// stays within [96 | 64, 512]); the CUDA kernel is compiled with __launch_bounds__(512), so
/// a larger block would not launch.
std::vector<int> csr_sweep_blocks();

/// Whether the sweep times p on a matrix of `rows` rows: coop a power of two 1..32, repeat a
/// power of two 1..64, block one of csr_sweep_blocks() and a multiple of coop, and at least
/// one full block of rows (repeat * block / coop <= rows) unless repeat is 1: a larger
/// repeat only launches the same single block with more idle rows.
bool csr_sweep_valid(const CsrParams& p, index_type rows);

/// Every valid combination for `rows` rows, coop-major, then repeat, then block. It always
/// holds the fixed rule's parameters (block 128, repeat <= 64 launching >= 16 blocks).
std::vector<CsrParams> csr_sweep_combinations(index_type rows);

/// Throws std::invalid_argument unless exec is a CUDA executor: the CPU backend's csr kernel
/// is the reference loop and ignores coop / repeat / block, so there is nothing to sweep.
void require_csr_sweep_backend(const Executor& exec);

/// One parameter set and its median SpMV time.
struct CsrSweepTiming {
    CsrParams params;
    long long grid = 0;           ///< blocks launched
    double median_seconds = 0;
    int rank = 0;                 ///< 1 = fastest of the sweep (ties share the better rank)
    bool in_sweep = true;         ///< false: outside the sweep's space, timed on its own
};

/// The sweep on one matrix.
struct CsrSweepResult {
    index_type rows = 0;
    std::size_t nnz = 0;
    std::size_t min_bytes = 0;              ///< Reguly & Giles 2012, eq. 4, as the csr row of bench spmv
    int repeats = 0;                        ///< timed SpMVs per combination (median)
    int warmup = 0;                         ///< untimed SpMVs per combination
    std::size_t x_copies = 0;               ///< x vectors the timed SpMVs rotate over
    std::vector<CsrSweepTiming> combinations;  ///< every combination, fastest first
    CsrSweepTiming fixed_rule;              ///< the operator's parameters before tuning
    CsrSweepTiming paper_rule;              ///< Reguly & Giles 2012's fixed rule (csr_paper_rule)
    CsrSweepTiming tuner;                   ///< the tuner's final parameters
    int tuner_spmvs = 0;                    ///< SpMVs the operator ran until its tuner was done
    std::string tuner_description;          ///< the operator's parameters() once tuned

    const CsrSweepTiming& best() const { return combinations.front(); }
    /// best time / this time, in percent (the paper's "% of the optimal performance").
    double percent_of_best(const CsrSweepTiming& t) const
    {
        return 100.0 * best().median_seconds / t.median_seconds;
    }
};

/// Times every csr_sweep_combinations(matrix.rows) combination with the parametrised kernel
/// (median of options.repeats SpMVs after min(options.warmup, 5) untimed ones, CUDA events,
/// x rotated over bench_inputs), then a CsrTunedOperator with the default options: its
/// parameters before the first SpMV (the fixed rule) and after its tuner is done. Parameters
/// outside the sweep's space (the tuner allows repeat up to 256) are timed the same way.
/// CUDA only (require_csr_sweep_backend).
template <typename V>
CsrSweepResult run_csr_sweep(const Csr<V>& matrix, const SpmvBenchOptions& options);

/// The report: the ten fastest combinations, the fixed rule's and the tuner's rows, their
/// percent of the best beside the paper's claims. `header` opens it (case, matrix, device).
std::string csr_sweep_report(const CsrSweepResult& result, const std::string& header, double copy_bw);

/// Prints csr_sweep_report and writes csr_sweep.csv (every combination) and csr_sweep.json
/// (the same, the summary and the paper's figures; `context` adds case, device, ...) into
/// folder through StagedOutputs.
void write_csr_sweep(const CsrSweepResult& result, const std::string& header,
                     const nlohmann::json& context, double copy_bw, const std::filesystem::path& folder);

}  // namespace gpufem
