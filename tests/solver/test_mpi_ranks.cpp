// The MPI communicator under mpirun (ctest runs this program on 1, 2, 3 and 4 ranks), and the
// NCCL one where every rank of a node has a GPU: sums and neighbour messages reach every rank,
// and ranks that each hold one block of a block-diagonal system solve as one rank solves the
// whole — the one-rank solve is the oracle.
#include <cmath>
#include <iostream>
#include <numeric>
#include <optional>

#include <gtest/gtest.h>

#include "assembly/part_numbering.hpp"
#include "linalg/nccl_communicator.hpp"
#include "mesh/mesh_source.hpp"
#include "random_values.hpp"
#include "solver/communicator_checks.hpp"

namespace gpufem::test {
namespace {

const MpiCommunicator& world()
{
    static const MpiCommunicator comm;
    return comm;
}

/// A seed drawn on rank 0 (printed there) and shared with every rank through the sum.
unsigned shared_seed()
{
    double seed = world().rank() == 0 ? static_cast<double>(random_seed()) : 0.0;
    world().all_reduce_sum(*Executor::create_cpu(), &seed, 1);
    return static_cast<unsigned>(seed);
}

/// Integer values (so that every order of the sum is exact) of rank r.
std::vector<double> rank_values(unsigned seed, int r, int count)
{
    std::vector<double> v = random_vector<double>(static_cast<std::size_t>(count), seed + 101 * r);
    for (double& x : v) x = std::round(x * 1e6);
    return v;
}

/// Where a rank's data lives and the communicator that joins the ranks.
struct RankSetup {
    ExecPtr exec;
    const Communicator* comm = nullptr;
};

/// The host and MPI.
RankSetup mpi_setup() { return {Executor::create_cpu(), &world()}; }

/// This rank's GPU (its number on the node) and NCCL, or nothing when the node has fewer GPUs
/// than ranks (every machine without a GPU).
std::optional<RankSetup> nccl_setup()
{
    if (Executor::cuda_device_count() < world().node_size()) return std::nullopt;
    // Made once and kept to the end of the process (CUDA may be gone by static destruction).
    static const NcclCommunicator* nccl = new NcclCommunicator(world(), world().node_rank());
    return RankSetup{Executor::create_cuda(world().node_rank()), nccl};
}

/// check on every rank's GPU through NCCL, or skipped where the node lacks GPUs.
void on_gpus(void (*check)(const RankSetup&, unsigned))
{
    const unsigned seed = shared_seed();
    const auto on = nccl_setup();
    if (!on) GTEST_SKIP() << "fewer GPUs than ranks on this node";
    check(*on, seed);
}

void check_sums(const RankSetup& on, unsigned seed)
{
    const int count = 37;
    auto mine = Array<double>::from_host(on.exec, rank_values(seed, on.comm->rank(), count));
    on.comm->all_reduce_sum(*on.exec, mine.data(), count);
    std::vector<double> expected(count, 0.0);
    for (int r = 0; r < on.comm->size(); ++r) {
        const std::vector<double> theirs = rank_values(seed, r, count);
        for (int k = 0; k < count; ++k) expected[k] += theirs[k];
    }
    EXPECT_EQ(mine.to_host(), expected);
    EXPECT_EQ(sum_over_processes(*on.comm, 1.5), 1.5 * on.comm->size());
    EXPECT_EQ(on.comm->reduces(), on.comm->size() > 1);
}

TEST(MpiRanks, SumsAreTheSumsOfEveryRanksValues)
{
    check_sums(mpi_setup(), shared_seed());
}

TEST(NcclRanks, SumsAreTheSumsOfEveryRanksValues)
{
    on_gpus(check_sums);
}

/// The message rank `from` sends rank `to`: its length and values say who sent it to whom.
std::vector<double> message(int from, int to, unsigned seed)
{
    const std::size_t length = static_cast<std::size_t>((from * 7 + to * 3 + seed) % 50);  // 0 .. 49
    std::vector<double> m(length);
    for (std::size_t k = 0; k < length; ++k) m[k] = 1000.0 * from + 10.0 * to + static_cast<double>(k);
    return m;
}

void check_exchange(const RankSetup& on, unsigned seed)
{
    const int me = on.comm->rank(), n = on.comm->size();
    std::vector<Array<double>> out, in;
    std::vector<ExchangeMessage> sends, receives;
    for (int peer = 0; peer < n; ++peer) {  // every rank, itself included
        out.push_back(Array<double>::from_host(on.exec, message(me, peer, seed)));
        in.push_back(Array<double>::from_host(on.exec, std::vector<double>(message(peer, me, seed).size(), -1.0)));
    }
    for (int peer = 0; peer < n; ++peer) {
        sends.push_back({peer, out[peer].data(), out[peer].size() * sizeof(double)});
        receives.push_back({peer, in[peer].data(), in[peer].size() * sizeof(double)});
    }
    on.comm->exchange(*on.exec, sends, receives);
    for (int peer = 0; peer < n; ++peer) EXPECT_EQ(in[peer].to_host(), message(peer, me, seed)) << "from rank " << peer;
}

TEST(MpiRanks, ExchangeDeliversEveryNeighboursMessage)
{
    check_exchange(mpi_setup(), shared_seed());
}

TEST(NcclRanks, ExchangeDeliversEveryNeighboursMessage)
{
    on_gpus(check_exchange);
}

/// A copy of a on exec.
template <typename V>
Csr<V> copy_of(const ExecPtr& exec, const Csr<V>& a)
{
    return Csr<V>{a.rows, a.cols, a.row_ptr.clone_to(exec), a.col_idx.clone_to(exec), a.values.clone_to(exec)};
}

/// diag(blocks) as one CSR matrix on exec.
template <typename V>
Csr<V> block_diagonal_of(const ExecPtr& exec, const std::vector<Csr<V>>& blocks)
{
    Csr<V> whole = copy_of(exec, blocks[0]);
    for (std::size_t b = 1; b < blocks.size(); ++b) whole = block_diagonal(exec, whole, blocks[b]);
    return whole;
}

void check_blocks_solve_as_one(const RankSetup& on, unsigned seed)
{
    const ExecPtr& exec = on.exec;
    const Communicator& comm = *on.comm;
    const int me = comm.rank(), n = comm.size();
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab}) {
        const bool cg = method == KrylovMethod::cg;
        std::vector<Csr<double>> blocks;
        std::vector<std::vector<double>> rhs;
        for (int r = 0; r < n; ++r) {
            blocks.push_back(grid_matrix<double>(exec, 20, 15 + 2 * r, cg ? 0 : 0.5, cg ? 0 : 0.3, 0.01, 0.3, seed + r));
            rhs.push_back(random_vector<double>(static_cast<std::size_t>(blocks.back().rows), seed + 50 + r));
        }
        std::vector<double> b_all;
        for (const auto& part : rhs) b_all.insert(b_all.end(), part.begin(), part.end());
        const auto whole = build_format<double>("csr", block_diagonal_of(exec, blocks), {});
        const auto own = build_format<double>("csr", copy_of(exec, blocks[me]), {});
        for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::reference}) {
            SCOPED_TRACE(fmt::format("{} {}", method_name(method), variant_name(variant)));
            SolveOptions options;
            options.tolerance = 1e-10;
            options.max_iterations = 5000;
            options.graph = GraphMode::off;
            const auto solve_with = [&](const LinearOperator<double>& a, const std::vector<double>& b,
                                        const Communicator& comm) {
                const auto m = make_test_preconditioner(TestPreconditioner::jacobi, a);
                Array<double> x(exec, b.size());
                fill(x, 0.0);
                const SolveResult result = solve(method, variant, a, Array<double>::from_host(exec, b), x, options,
                                                 m.get(), comm);
                return std::make_pair(result, x.to_host());
            };
            const auto [one, x_one] = solve_with(*whole.op, b_all, serial_communicator());
            const auto [mine, x_mine] = solve_with(*own.op, rhs[me], comm);
            ASSERT_TRUE(one.converged()) << one.message;
            EXPECT_TRUE(mine.converged()) << mine.message;
            const int slack = cg ? 1 : std::max(2, one.iterations / 10);
            EXPECT_LE(std::abs(mine.iterations - one.iterations), slack) << "one rank: " << one.iterations;
            // Every rank stops at the same iteration with the same history.
            double spread = mine.iterations * (me + 1.0);
            comm.all_reduce_sum(*Executor::create_cpu(), &spread, 1);
            EXPECT_EQ(spread, mine.iterations * n * (n + 1) / 2.0) << "the ranks stopped apart";
            const std::size_t offset = std::accumulate(rhs.begin(), rhs.begin() + me, std::size_t(0),
                                                       [](std::size_t s, const auto& p) { return s + p.size(); });
            const std::vector<double> x_part(x_one.begin() + offset, x_one.begin() + offset + x_mine.size());
            EXPECT_LT(relative_difference(x_mine, x_part), 1e-8);
        }
    }
}

TEST(MpiRanks, RanksSolveTheirBlocksAsOneRankSolvesTheWhole)
{
    check_blocks_solve_as_one(mpi_setup(), shared_seed());
}

TEST(NcclRanks, RanksSolveTheirBlocksAsOneRankSolvesTheWhole)
{
    on_gpus(check_blocks_solve_as_one);
}

/// A value only the owner of global node g computes.
double owner_value(index_type g) { return 0.25 * g - 7; }

/// Each rank, holding one part of a METIS partition of a degree-2 tetrahedral cube, fills
/// its owned nodes; after one exchange along the halo plan its ghosts hold their owners'
/// values.
void check_halo_round_trip(const RankSetup& on, unsigned /*seed*/)
{
    MeshSpec spec;
    spec.kind = MeshSpec::Kind::shape;
    spec.shape = "unit_cube";
    spec.elements = "tetrahedron";
    spec.size = 0.25;
    spec.degree = 2;
    const Mesh mesh = load_mesh(spec);
    const int me = on.comm->rank(), n = on.comm->size();
    const CellPartition partition = partition_cells(mesh, n);
    const std::vector<int> owners = node_owners(mesh, partition);
    std::vector<PartNumbering> numbering;
    for (int p = 0; p < n; ++p) numbering.push_back(part_node_numbering(mesh, partition, owners, p));
    const HaloPlan plan = halo_plans(numbering)[me];
    const PartNumbering& mine = numbering[me];
    std::vector<double> start(mine.global.size(), -1.0);
    for (index_type l = 0; l < mine.layout.owned; ++l) start[l] = owner_value(mine.global[l]);
    Array<double> values = Array<double>::from_host(on.exec, start);
    std::vector<Array<double>> packed;
    std::vector<ExchangeMessage> sends, receives;
    for (const HaloPlan::Send& send : plan.sends) {
        std::vector<double> out;
        for (index_type l : send.local) out.push_back(start[l]);
        packed.push_back(Array<double>::from_host(on.exec, out));
        sends.push_back({send.peer, packed.back().data(), out.size() * sizeof(double)});
    }
    for (std::size_t b = 0; b < plan.receives.size(); ++b)
        receives.push_back({plan.receives[b].owner, values.data() + mine.layout.ghost_begin(b),
                            static_cast<std::size_t>(plan.receives[b].count) * sizeof(double)});
    on.comm->exchange(*on.exec, sends, receives);
    const std::vector<double> after = values.to_host();
    for (std::size_t l = 0; l < after.size(); ++l)
        ASSERT_EQ(after[l], owner_value(mine.global[l])) << "rank " << me << " unknown " << l;
}

TEST(MpiRanks, HaloExchangeFillsEveryGhostWithItsOwnersValue)
{
    check_halo_round_trip(mpi_setup(), shared_seed());
}

TEST(NcclRanks, HaloExchangeFillsEveryGhostWithItsOwnersValue)
{
    on_gpus(check_halo_round_trip);
}

}  // namespace
}  // namespace gpufem::test

namespace {

/// The failures of a rank other than 0, each line marked with the rank.
class RankFailurePrinter final : public ::testing::EmptyTestEventListener {
public:
    explicit RankFailurePrinter(int rank) : rank_(rank) {}
    void OnTestPartResult(const ::testing::TestPartResult& result) override
    {
        if (result.failed())
            std::cout << "[rank " << rank_ << "] " << (result.file_name() ? result.file_name() : "?") << ":"
                      << result.line_number() << ": " << result.summary() << std::endl;
    }

private:
    int rank_;
};

}  // namespace

/// MPI around GoogleTest: every rank runs every test; rank 0 prints the usual report, the
/// other ranks their failures.
int main(int argc, char** argv)
{
    gpufem::MpiSession mpi(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    const int rank = gpufem::test::world().rank();
    if (rank != 0) {
        auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
        delete listeners.Release(listeners.default_result_printer());
        listeners.Append(new RankFailurePrinter(rank));
    }
    return RUN_ALL_TESTS();
}
