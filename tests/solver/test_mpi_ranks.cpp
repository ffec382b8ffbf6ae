// The MPI communicator under mpirun (ctest runs this program on 1, 2, 3 and 4 ranks), and the
// NCCL one where every rank of a node has a GPU: sums and neighbour messages reach every rank,
// and ranks that each hold one block of a block-diagonal system solve as one rank solves the
// whole — the one-rank solve is the oracle.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <iostream>
#include <numeric>
#include <optional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "assembly/grid_part.hpp"
#include "assembly/lagrange_interpolation.hpp"
#include "assembly/part_mesh.hpp"
#include "assembly/part_numbering.hpp"
#include "linalg/distributed_operator.hpp"
#include "linalg/nccl_communicator.hpp"
#include "linalg/rank_messages.hpp"
#include "mesh/mesh_source.hpp"
#include "solver/case/case_file.hpp"
#include "solver/multigrid/amg_preconditioner.hpp"
#include "solver/multigrid/distributed_amg.hpp"
#include "mesh/grid_blocks.hpp"
#include "solver/run/distributed_system.hpp"
#include "solver/run/part_spaces.hpp"
#include "solver/run/pipeline.hpp"
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

/// Rank r's keyed entries for sums_by_key: a random half of the keys 0 .. 299 (shuffled, so
/// that each rank lists them in its own order) with two whole-number values each.
std::pair<std::vector<long long>, std::vector<double>> keyed_entries(unsigned seed, int r)
{
    std::vector<long long> keys;
    const std::vector<double> pick = random_vector<double>(300, seed + 7 * r + 1);
    for (long long k = 0; k < 300; ++k)
        if (pick[static_cast<std::size_t>(k)] > 0) keys.push_back(k);
    std::mt19937 shuffle(seed + r);
    std::shuffle(keys.begin(), keys.end(), shuffle);
    return {keys, rank_values(seed, r, 2 * static_cast<int>(keys.size()))};
}

TEST(MpiRanks, SumsByKeyAddEveryRanksEntriesOfTheSameKey)
{
    const unsigned seed = shared_seed();
    const int me = world().rank();
    const auto [keys, values] = keyed_entries(seed, me);
    const std::vector<double> sums = sums_by_key(world(), keys, values, 2);
    std::map<long long, std::array<double, 2>> expected;
    for (int r = 0; r < world().size(); ++r) {
        const auto [their_keys, their_values] = keyed_entries(seed, r);
        for (std::size_t k = 0; k < their_keys.size(); ++k)
            for (int j = 0; j < 2; ++j) expected[their_keys[k]][j] += their_values[2 * k + j];
    }
    ASSERT_EQ(sums.size(), values.size());
    for (std::size_t k = 0; k < keys.size(); ++k)
        for (int j = 0; j < 2; ++j) EXPECT_EQ(sums[2 * k + j], expected[keys[k]][j]) << "key " << keys[k];
    EXPECT_THROW(sums_by_key(world(), keys, values, 3), std::invalid_argument);  // refused on every rank alike
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

/// A Jacobi-preconditioned solve of op u = rhs from start (host vectors) to 1e-10 through comm:
/// the result and u on the host.
std::pair<SolveResult, std::vector<double>> jacobi_solve(KrylovMethod method, KrylovVariant variant,
                                                         const LinearOperator<double>& op,
                                                         const std::vector<double>& rhs,
                                                         const std::vector<double>& start, const Communicator& comm)
{
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 5000;
    options.graph = GraphMode::off;
    const auto m = make_test_preconditioner(TestPreconditioner::jacobi, op);
    Array<double> u = Array<double>::from_host(op.executor(), start);
    const SolveResult result =
        solve(method, variant, op, Array<double>::from_host(op.executor(), rhs), u, options, m.get(), comm);
    return {result, u.to_host()};
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
        for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::reference, KrylovVariant::single_reduction}) {
            if (variant == KrylovVariant::single_reduction && !cg) continue;
            SCOPED_TRACE(fmt::format("{} {}", method_name(method), variant_name(variant)));
            const auto [one, x_one] =
                jacobi_solve(method, variant, *whole.op, b_all, std::vector<double>(b_all.size()), serial_communicator());
            const auto [mine, x_mine] =
                jacobi_solve(method, variant, *own.op, rhs[me], std::vector<double>(rhs[me].size()), comm);
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
/// its owned nodes; after one update of the halo exchange its ghosts hold their owners'
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
    std::vector<double> owned;
    for (index_type l = 0; l < mine.layout.owned; ++l) owned.push_back(owner_value(mine.global[l]));
    const HaloExchange<double> halo(plan, on.exec, *on.comm);
    Array<double> ghosts =
        Array<double>::from_host(on.exec, std::vector<double>(static_cast<std::size_t>(halo.ghosts()), -1.0));
    halo.update(Array<double>::from_host(on.exec, owned), ghosts);
    const std::vector<double> after = ghosts.to_host();
    ASSERT_EQ(static_cast<index_type>(after.size()), mine.layout.ghosts());
    for (std::size_t g = 0; g < after.size(); ++g)
        ASSERT_EQ(after[g], owner_value(mine.global[mine.layout.owned + g])) << "rank " << me << " ghost " << g;
}

TEST(MpiRanks, HaloExchangeFillsEveryGhostWithItsOwnersValue)
{
    check_halo_round_trip(mpi_setup(), shared_seed());
}

TEST(NcclRanks, HaloExchangeFillsEveryGhostWithItsOwnersValue)
{
    on_gpus(check_halo_round_trip);
}

TEST(MpiRanks, AHaloPlanFromTheOwnersEqualsThePlanOfEveryPartsNumbering)
{
    // Each rank makes its own part of generated grids; the plan its owners answer with is the
    // one every part's numbering gives on one process.
    const int me = world().rank(), n = world().size();
    for (const char* elements : {"tetrahedron", "hexahedron"})
        for (int degree : {1, 3}) {
            SCOPED_TRACE(std::string(elements) + " order " + std::to_string(degree));
            MeshSpec spec;
            spec.kind = MeshSpec::Kind::shape;
            spec.shape = "unit_cube";
            spec.elements = elements;
            spec.size = 0.2;
            spec.degree = degree;
            const ShapeGrid grid = *box_shape_grid(spec);
            const GridBlocks blocks = grid_blocks(grid.grid, n);
            std::vector<PartNumbering> numbering;
            for (int p = 0; p < n; ++p) numbering.push_back(grid_part(grid, blocks, p).numbering);
            const HaloPlan expected = halo_plans(numbering)[me];
            const HaloPlan plan = halo_plan_from_owners(world(), numbering[me]);
            ASSERT_EQ(plan.receives.size(), expected.receives.size());
            for (std::size_t b = 0; b < plan.receives.size(); ++b) {
                EXPECT_EQ(plan.receives[b].owner, expected.receives[b].owner);
                EXPECT_EQ(plan.receives[b].count, expected.receives[b].count);
            }
            ASSERT_EQ(plan.sends.size(), expected.sends.size());
            for (std::size_t s = 0; s < plan.sends.size(); ++s) {
                EXPECT_EQ(plan.sends[s].peer, expected.sends[s].peer);
                EXPECT_EQ(plan.sends[s].local, expected.sends[s].local);
            }
            if (n > 1) EXPECT_FALSE(plan.sends.empty());
        }
}

/// A Poisson problem of degree-2 tetrahedra on the unit cube, assembled whole on every rank
/// (the one-rank oracle), and this rank's part of it.
struct PartSystem {
    LinearSystem<double> whole;
    PartNumbering mine;
    HaloPlan plan;
    Csr<double> rows;  ///< the owned rows in the rank's local numbering, on the rank's executor
    Mesh mesh;         ///< the whole mesh
    PartMesh piece;    ///< this rank's part of it
};

PartSystem part_system(const RankSetup& on)
{
    const CaseSpec spec = parse_case_text(R"(
mesh: {shape: unit_cube, elements: tetrahedron, size: 0.25}
degree: 2
problem: {kappa: "1 + x*y", f: "1 + z", dirichlet: {boundary: "x*x + y"}}
backend: cpu
)", "distributed", "");
    const CaseMesh input = load_case_mesh(spec, Executor::create_cpu());
    const auto disc = make_discretisation<double>(spec, input);
    PartSystem part{disc->assemble(Executor::create_cpu()), {}, {}, {}, input.mesh, {}};
    const Mesh& mesh = part.mesh;
    const int me = on.comm->rank();
    const CellPartition partition = partition_cells(mesh, on.comm->size());
    const std::vector<int> owners = node_owners(mesh, partition);
    std::vector<PartNumbering> numbering;
    for (int p = 0; p < on.comm->size(); ++p) numbering.push_back(part_node_numbering(mesh, partition, owners, p));
    part.plan = halo_plans(numbering)[me];
    part.mine = numbering[me];
    part.piece = part_mesh(mesh, partition, owners, part.mine);
    std::vector<index_type> local_of(static_cast<std::size_t>(mesh.num_nodes()), -1);
    for (std::size_t l = 0; l < part.mine.global.size(); ++l) local_of[part.mine.global[l]] = static_cast<index_type>(l);
    const std::vector<index_type> ptr = part.whole.matrix.row_ptr.to_host(), col = part.whole.matrix.col_idx.to_host();
    const std::vector<double> val = part.whole.matrix.values.to_host();
    std::vector<index_type> p{0}, c;
    std::vector<double> v;
    for (index_type l = 0; l < part.mine.layout.owned; ++l) {
        const index_type g = part.mine.global[l];
        for (index_type k = ptr[g]; k < ptr[g + 1]; ++k) {
            EXPECT_GE(local_of[col[k]], 0) << "row " << g << " reaches node " << col[k] << ", which rank " << me
                                           << " does not hold";
            c.push_back(local_of[col[k]]);
            v.push_back(val[k]);
        }
        p.push_back(static_cast<index_type>(c.size()));
    }
    part.rows = Csr<double>{part.mine.layout.owned, part.mine.layout.size(), Array<index_type>::from_host(on.exec, p),
                            Array<index_type>::from_host(on.exec, c), Array<double>::from_host(on.exec, v)};
    return part;
}

/// The owned entries of a global vector.
std::vector<double> owned_part(const PartNumbering& mine, const std::vector<double>& global)
{
    std::vector<double> out;
    for (index_type l = 0; l < mine.layout.owned; ++l) out.push_back(global[mine.global[l]]);
    return out;
}

/// Each rank applies and solves its rows of a finite element system (METIS partition, owned
/// and ghost nodes, a halo) as one rank does the whole: the product to rounding, CG and
/// BiCGSTAB with Jacobi to the iteration (+-1) and the solution to 1e-8.
void check_distributed_fe_system(const RankSetup& on, unsigned seed)
{
    PartSystem part = part_system(on);
    const index_type owned = part.mine.layout.owned;
    SplitRows<double> split = split_owned_columns(part.rows, part.mine.layout.ghosts());
    auto local = build_format<double>("csr", std::move(split.local), {});
    const DistributedOperator<double> a(std::move(local.op), std::move(split.nonlocal), part.plan, *on.comm);
    const auto whole = build_format<double>("csr", std::move(part.whole.matrix), {});
    // The product: y = A x for random x.
    const std::vector<double> x = random_vector<double>(static_cast<std::size_t>(whole.op->rows()), seed);
    Array<double> y_whole(Executor::create_cpu(), x.size());
    whole.op->apply(Array<double>::from_host(Executor::create_cpu(), x), y_whole);
    Array<double> y(on.exec, static_cast<std::size_t>(owned));
    a.apply(Array<double>::from_host(on.exec, owned_part(part.mine, x)), y);
    EXPECT_LT(max_relative_difference(y.to_host(), owned_part(part.mine, y_whole.to_host())), 1e-13);
    const std::vector<double> b = part.whole.rhs.to_host(), guess = part.whole.initial_guess.to_host();
    for (KrylovMethod method : {KrylovMethod::cg, KrylovMethod::bicgstab})
        for (KrylovVariant variant : {KrylovVariant::merged, KrylovVariant::reference, KrylovVariant::single_reduction}) {
            if (variant == KrylovVariant::single_reduction && method != KrylovMethod::cg) continue;
            SCOPED_TRACE(fmt::format("{} {}", method_name(method), variant_name(variant)));
            const auto [one, u_one] = jacobi_solve(method, variant, *whole.op, b, guess, serial_communicator());
            const auto [mine, u_mine] =
                jacobi_solve(method, variant, a, owned_part(part.mine, b), owned_part(part.mine, guess), *on.comm);
            ASSERT_TRUE(one.converged()) << one.message;
            EXPECT_TRUE(mine.converged()) << mine.message;
            EXPECT_LE(std::abs(mine.iterations - one.iterations), method == KrylovMethod::cg ? 1 : 3)
                << "one rank: " << one.iterations;
            EXPECT_LT(max_relative_difference(u_mine, owned_part(part.mine, u_one)), 1e-8);
        }
}

TEST(MpiRanks, ADistributedFiniteElementSystemSolvesAsOnOneRank)
{
    check_distributed_fe_system(mpi_setup(), shared_seed());
}

TEST(NcclRanks, ADistributedFiniteElementSystemSolvesAsOnOneRank)
{
    on_gpus(check_distributed_fe_system);
}

/// A CG solve of op u = rhs from start to 1e-10 with preconditioner m through comm.
std::pair<SolveResult, std::vector<double>> preconditioned_solve(const LinearOperator<double>& op,
                                                                 const Preconditioner<double>& m,
                                                                 const std::vector<double>& rhs,
                                                                 const std::vector<double>& start,
                                                                 const Communicator& comm)
{
    SolveOptions options;
    options.tolerance = 1e-10;
    options.max_iterations = 500;
    options.graph = GraphMode::off;
    Array<double> u = Array<double>::from_host(op.executor(), start);
    const SolveResult result = solve(KrylovMethod::cg, KrylovVariant::merged, op,
                                     Array<double>::from_host(op.executor(), rhs), u, options, &m, comm);
    return {result, u.to_host()};
}

/// The rank's rows of part as a distributed operator, beside the CSR blocks a multigrid setup
/// reads (on the rank's executor).
struct DistributedPart {
    Csr<double> local_rows, ghost_rows;
    std::unique_ptr<DistributedOperator<double>> a;
};

DistributedPart distributed_part(const PartSystem& part, const RankSetup& on)
{
    SplitRows<double> split = split_owned_columns(part.rows, part.mine.layout.ghosts());
    DistributedPart out{split.local.clone_to(on.exec), split.nonlocal.clone_to(on.exec), nullptr};
    auto local = build_format<double>("csr", std::move(split.local), {});
    out.a = std::make_unique<DistributedOperator<double>>(std::move(local.op), std::move(split.nonlocal), part.plan,
                                                          *on.comm);
    return out;
}

/// A system as one rank solves it: its operator and right-hand side, initial guess.
struct SystemToSolve {
    const LinearOperator<double>& op;
    std::vector<double> rhs, guess;
};

/// CG with m on the rank's rows (mine; its owned unknowns numbered by numbering) converges to
/// the solution of CG with serial on the whole system (1e-8), in the same iterations within
/// slack.
void expect_solves_as_one_rank(const SystemToSolve& whole, const Preconditioner<double>& serial,
                               const SystemToSolve& mine, const Preconditioner<double>& m,
                               const PartNumbering& numbering, const RankSetup& on, int slack)
{
    const auto [one, u_one] = preconditioned_solve(whole.op, serial, whole.rhs, whole.guess, serial_communicator());
    ASSERT_TRUE(one.converged()) << one.message;
    const auto [ranks, u_mine] = preconditioned_solve(mine.op, m, mine.rhs, mine.guess, *on.comm);
    EXPECT_TRUE(ranks.converged()) << ranks.message;
    EXPECT_LE(std::abs(ranks.iterations - one.iterations), slack)
        << "one rank: " << one.iterations << ", " << on.comm->size() << " ranks: " << ranks.iterations;
    EXPECT_LT(max_relative_difference(u_mine, owned_part(numbering, u_one)), 1e-8);
}

/// CG with m on the rank's rows a of part against CG with serial on part's whole system.
void expect_part_solves_as_one_rank(const PartSystem& part, const LinearOperator<double>& whole,
                                    const Preconditioner<double>& serial, const LinearOperator<double>& a,
                                    const Preconditioner<double>& m, const RankSetup& on, int slack)
{
    const std::vector<double> b = part.whole.rhs.to_host(), guess = part.whole.initial_guess.to_host();
    expect_solves_as_one_rank({whole, b, guess}, serial, {a, owned_part(part.mine, b), owned_part(part.mine, guess)}, m,
                              part.mine, on, slack);
}

/// AMG across the ranks of a METIS-partitioned P2 system: every distributed level's Galerkin
/// operator equals R A P applied to a random vector (the product across ranks, with the
/// prolongator rows the ghosts name, checked level by level), with coarse levels split among
/// the ranks down to a small gathered one; CG with it converges to the one-rank solution with
/// about the one-rank AMG's iterations.
void check_distributed_amg(const RankSetup& on, unsigned seed)
{
    PartSystem part = part_system(on);
    const DistributedPart mine = distributed_part(part, on);
    const Csr<double> whole_matrix = part.whole.matrix.clone_to(Executor::create_cpu());
    const auto whole = build_format<double>("csr", part.whole.matrix.clone_to(Executor::create_cpu()), {});
    const DistributedRows<double> rows{mine.local_rows, mine.ghost_rows, part.plan, world(), *on.comm};
    struct Variant {
        int gather_rows;
        AmgProlongator prolongator;
        double strength_threshold;
    };
    // The filtered smoothing at a threshold that leaves many of P2's couplings weak.
    for (const Variant v : {Variant{4, AmgProlongator::full, 0.02}, Variant{200000, AmgProlongator::full, 0.02},
                            Variant{4, AmgProlongator::filtered, 0.08}}) {
        SCOPED_TRACE(fmt::format("gather_rows {}, prolongator {}, threshold {}", v.gather_rows,
                                 enum_name(amg_prolongator_names, v.prolongator), v.strength_threshold));
        AmgOptions options;
        options.gather_rows = v.gather_rows;
        options.prolongator = v.prolongator;
        options.strength_threshold = v.strength_threshold;
        const AmgPreconditioner<double> serial(*whole.op, whole_matrix, options);
        const DistributedAmg<double> amg(*mine.a, rows, options);
        if (v.gather_rows == 4) EXPECT_GE(amg.distributed_levels(), 2);
        // Every distributed level has a coarser one, but the last when nothing was gathered.
        const bool gathered = amg.report()["gathered"] != nullptr;
        const int with_coarser = amg.distributed_levels() - (gathered ? 0 : 1);
        EXPECT_GE(with_coarser, 1);
        for (int l = 0; l < with_coarser; ++l)
            EXPECT_LT(amg.galerkin_defect(static_cast<std::size_t>(l), seed), 1e-13) << "level " << l;
        expect_part_solves_as_one_rank(part, *whole.op, serial, *mine.a, amg, on, 3);
    }
}

TEST(MpiRanks, AmgAcrossRanksMultipliesOutItsGalerkinLevelsAndSolvesAsOneRank)
{
    check_distributed_amg(mpi_setup(), shared_seed());
}

TEST(NcclRanks, AmgAcrossRanksMultipliesOutItsGalerkinLevelsAndSolvesAsOneRank)
{
    on_gpus(check_distributed_amg);
}

/// p-multigrid across the ranks of the METIS-partitioned P2 system: the part's degree-1 space
/// numbered across the ranks (every vertex once), the degree-1 level's Galerkin operator equal
/// to R A P applied to a random vector (the transfer's ghost columns and rows across ranks),
/// and CG with it converging to the one-rank solution within 2 iterations of one rank's
/// p-multigrid on the same lower degree.
void check_distributed_pmg(const RankSetup& on, unsigned seed)
{
    PartSystem part = part_system(on);
    const DistributedPart mine = distributed_part(part, on);
    const PartPayload payload{part.piece, part.mine, part.plan};
    const std::vector<PartSpace<double>> spaces = part_spaces<double>(payload, Array<index_type>(), nullptr, on.exec, world());
    ASSERT_EQ(spaces.size(), 1u);
    std::vector<DegreeLevel<double>> one_rank_levels = degree_levels<double>(part.mesh, Executor::create_cpu());
    ASSERT_EQ(one_rank_levels.size(), 1u);
    const auto vertices = static_cast<index_type>(one_rank_levels[0].space.dof_nodes.size());
    EXPECT_EQ(spaces[0].offsets.back(), vertices);
    EXPECT_EQ(sum_over_processes(world(), static_cast<double>(spaces[0].owned)), static_cast<double>(vertices));
    const DistributedRows<double> rows{mine.local_rows, mine.ghost_rows, part.plan, world(), *on.comm, &spaces};
    AmgOptions options;
    options.gather_rows = 4;  // the levels below the lower degree split among the ranks too
    const DistributedAmg<double> pmg(*mine.a, rows, options);
    EXPECT_EQ(pmg.name(), "pmg");
    ASSERT_GE(pmg.distributed_levels(), 2);
    EXPECT_EQ(pmg.levels()[1].rows, vertices);
    EXPECT_LT(pmg.galerkin_defect(0, seed), 1e-13);
    EXPECT_LT(pmg.galerkin_defect(1, seed + 1), 1e-13);
    std::vector<Csr<double>> transfers;
    transfers.push_back(std::move(one_rank_levels[0].transfer));
    const Csr<double> whole_matrix = part.whole.matrix.clone_to(Executor::create_cpu());
    const auto whole = build_format<double>("csr", part.whole.matrix.clone_to(Executor::create_cpu()), {});
    const AmgPreconditioner<double> serial(*whole.op, whole_matrix, AmgOptions{}, &transfers);
    expect_part_solves_as_one_rank(part, *whole.op, serial, *mine.a, pmg, on, 2);
}

TEST(MpiRanks, PmgAcrossRanksNumbersTheLowerDegreeAndSolvesAsOneRank)
{
    check_distributed_pmg(mpi_setup(), shared_seed());
}

TEST(NcclRanks, PmgAcrossRanksNumbersTheLowerDegreeAndSolvesAsOneRank)
{
    on_gpus(check_distributed_pmg);
}

/// CG with pmg on the rank's system of part converges as CG with one rank's p-multigrid on the
/// whole mesh of spec (32-bit CSR, its transfers down the same levels) does: the same solution,
/// the iterations within 2.
void expect_pmg_solves_as_one_rank(const CaseSpec& spec, const DistributedSystem<double>& system,
                                   const Preconditioner<double>& pmg, const PartPayload& part, const RankSetup& on)
{
    const CaseMesh input = load_case_mesh(spec, Executor::create_cpu());
    LinearSystem<double> whole = make_discretisation<double>(spec, input)->assemble(Executor::create_cpu());
    std::vector<Csr<double>> transfers = pmg_interpolations<double>(input.mesh, Executor::create_cpu());
    ASSERT_EQ(transfers.size(), 3u);
    const Csr<double> whole_matrix = whole.matrix.clone_to(Executor::create_cpu());
    const auto whole_op = build_format<double>("csr", std::move(whole.matrix), {});
    const AmgPreconditioner<double> serial(*whole_op.op, whole_matrix, AmgOptions{}, &transfers);
    expect_solves_as_one_rank({*whole_op.op, whole.rhs.to_host(), whole.initial_guess.to_host()}, serial,
                              {*system.op, system.rhs.to_host(), system.initial_guess.to_host()}, pmg, part.numbering,
                              on, 2);
}

/// p-multigrid across the ranks of a generated Q2 cube, each rank's block of the grid made by
/// the rank alone: the degree-1 space and the grids of 4 and 2 boxes a side are levels split
/// among the ranks (numbered across them), each level's Galerkin operator equals R A P applied
/// to a random vector, and CG with it converges to the one-rank solution within 2 iterations
/// of one rank's p-multigrid with the same levels.
void check_grid_pmg(const RankSetup& on, unsigned seed)
{
    const CaseSpec spec = parse_case_text(R"(
mesh: {shape: unit_cube, size: 0.125}
degree: 2
problem: {kappa: "1 + x*y", f: "1 + z", dirichlet: {boundary: "x*x + y"}}
solver: {preconditioner: pmg}
backend: cpu
)", "grid_pmg", "");
    const ShapeGrid shape = *box_shape_grid(spec.mesh);
    GridPart made = grid_part(shape, grid_blocks(shape.grid, world().size()), world().rank());
    HaloPlan plan = halo_plan_from_owners(world(), made.numbering);
    const PartPayload part{std::move(made.part), std::move(made.numbering), std::move(plan)};
    const DistributedSystem<double> system = build_distributed_system<double>(on.exec, part, spec, *on.comm);
    const std::vector<PartSpace<double>> spaces =
        preconditioner_spaces<double>(spec, part, system.permutation, on.exec, world());
    ASSERT_EQ(spaces.size(), 3u);
    for (const PartSpace<double>& space : spaces) {  // interpolations: every row sums to 1
        const std::vector<index_type> ptr = space.transfer.row_ptr.to_host();
        const std::vector<double> val = space.transfer.values.to_host();
        for (std::size_t i = 0; i + 1 < ptr.size(); ++i) {
            double sum = 0;
            for (index_type k = ptr[i]; k < ptr[i + 1]; ++k) sum += val[static_cast<std::size_t>(k)];
            ASSERT_NEAR(sum, 1.0, 1e-14) << "row " << i << " of the transfer to " << space.offsets.back() << " points";
        }
    }
    EXPECT_EQ(spaces[0].offsets.back(), 729);  // 9^3 vertices, then 5^3 and 3^3 grid points
    EXPECT_EQ(spaces[1].offsets.back(), 125);
    EXPECT_EQ(spaces[2].offsets.back(), 27);
    const Csr<double>& local = system.lent_rows ? *system.lent_rows : system.local_rows;
    const DistributedRows<double> rows{local, system.ghost_rows, system.halo, world(), *on.comm, &spaces};
    AmgOptions options;
    options.gather_rows = 4;  // every grid split among the ranks
    const DistributedAmg<double> pmg(*system.op, rows, options);
    EXPECT_EQ(pmg.report()["coarser_space_levels"].get<int>(), 3);
    for (std::size_t l = 0; l < 3; ++l)
        EXPECT_LT(pmg.galerkin_defect(l, seed + static_cast<unsigned>(l)), 1e-13) << "level " << l;
    expect_pmg_solves_as_one_rank(spec, system, pmg, part, on);
}

TEST(MpiRanks, PmgAcrossRanksSplitsEveryCoarserGridOfAGeneratedCube)
{
    check_grid_pmg(mpi_setup(), shared_seed());
}

TEST(NcclRanks, PmgAcrossRanksSplitsEveryCoarserGridOfAGeneratedCube)
{
    on_gpus(check_grid_pmg);
}

/// a and b applied to the same random vector (drawn from seed) agree to 1e-12.
void expect_same_cycles(const Preconditioner<double>& a, const Preconditioner<double>& b, const ExecPtr& exec,
                        unsigned seed)
{
    const auto n = static_cast<std::size_t>(a.size());
    const Array<double> r = Array<double>::from_host(exec, random_vector<double>(n, seed));
    Array<double> za(exec, n), zb(exec, n);
    a.apply(r, za);
    b.apply(r, zb);
    EXPECT_LT(max_relative_difference(za.to_host(), zb.to_host()), 1e-12) << "seed " << seed;
}

/// A rank's rows with 64-bit row offsets (as past 2^31 - 1 entries; here asked for by
/// format_options.csr.offsets: 64) on a generated cube at degree 1: the local block keeps them
/// (none of 32 bits beside it), their entries are those of the 32-bit rows (to rounding: on
/// the GPU the wide assembly adds into rows it searches, in another order), p-multigrid's
/// Galerkin products down the grid levels are exact, and its cycle gives the 32-bit rows'
/// result to rounding; CG with it converges to one rank's solution. AMG, which aggregates the
/// finest rows, refuses them on every rank.
void check_wide_rank_rows(const RankSetup& on, unsigned seed)
{
    const std::string text = R"(
mesh: {shape: unit_cube, size: 0.0625}
problem: {kappa: "1 + x*y", f: "1 + z", dirichlet: {boundary: "x*x + y"}}
format: csr
solver: {preconditioner: pmg}
backend: cpu
)";
    const CaseSpec narrow_spec = parse_case_text(text, "narrow", "");
    const CaseSpec spec = parse_case_text(text + "format_options: {csr: {offsets: 64}}\n", "wide", "");
    const ShapeGrid shape = *box_shape_grid(spec.mesh);
    GridPart made = grid_part(shape, grid_blocks(shape.grid, world().size()), world().rank());
    HaloPlan plan = halo_plan_from_owners(world(), made.numbering);
    const PartPayload part{std::move(made.part), std::move(made.numbering), std::move(plan)};
    const DistributedSystem<double> narrow = build_distributed_system<double>(on.exec, part, narrow_spec, *on.comm);
    const DistributedSystem<double> system = build_distributed_system<double>(on.exec, part, spec, *on.comm);
    ASSERT_NE(system.lent_wide_rows, nullptr);
    EXPECT_EQ(system.lent_rows, nullptr);
    ASSERT_NE(narrow.lent_rows, nullptr);
    const std::vector<wide_offset_type> wide_ptr = system.lent_wide_rows->row_ptr.to_host();
    EXPECT_EQ(std::vector<index_type>(wide_ptr.begin(), wide_ptr.end()), narrow.lent_rows->row_ptr.to_host());
    EXPECT_EQ(system.lent_wide_rows->col_idx.to_host(), narrow.lent_rows->col_idx.to_host());
    EXPECT_LT(max_relative_difference(system.lent_wide_rows->values.to_host(), narrow.lent_rows->values.to_host()),
              1e-14);
    EXPECT_EQ(system.ghost_rows.col_idx.to_host(), narrow.ghost_rows.col_idx.to_host());
    EXPECT_LT(max_relative_difference(system.ghost_rows.values.to_host(), narrow.ghost_rows.values.to_host()), 1e-14);
    const std::vector<PartSpace<double>> spaces =
        preconditioner_spaces<double>(spec, part, system.permutation, on.exec, world());
    ASSERT_EQ(spaces.size(), 3u);  // 17^3 vertices: grids of 9^3, 5^3 and 3^3 points
    AmgOptions options;
    options.gather_rows = 4;  // every grid split among the ranks
    const DistributedAmg<double> pmg(*system.op, distributed_rows(system, world(), *on.comm, &spaces), options);
    const DistributedAmg<double> narrow_pmg(*narrow.op, distributed_rows(narrow, world(), *on.comm, &spaces), options);
    for (std::size_t l = 0; l < 3; ++l)
        EXPECT_LT(pmg.galerkin_defect(l, seed + static_cast<unsigned>(l)), 1e-13) << "level " << l << ", seed " << seed;
    expect_same_cycles(pmg, narrow_pmg, on.exec, seed + 7);
    EXPECT_THROW(DistributedAmg<double>(*system.op, distributed_rows(system, world(), *on.comm), options),
                 std::invalid_argument);
    expect_pmg_solves_as_one_rank(spec, system, pmg, part, on);
}

TEST(MpiRanks, RowsWith64BitOffsetsTakePmgDownAGeneratedGrid)
{
    check_wide_rank_rows(mpi_setup(), shared_seed());
}

TEST(NcclRanks, RowsWith64BitOffsetsTakePmgDownAGeneratedGrid)
{
    on_gpus(check_wide_rank_rows);
}

/// A generated Q2 cube's case with the given kappa (the rest of every point alike).
CaseSpec cube_case(const std::string& kappa, const std::string& size)
{
    return parse_case_text("mesh: {shape: unit_cube, size: " + size + "}\ndegree: 2\nproblem: {kappa: \"" + kappa +
                               "\", f: \"1 + z\", dirichlet: {boundary: \"x*x + y\"}}\n"
                               "solver: {preconditioner: pmg}\nbackend: cpu\n",
                           "cube_" + size, "");
}

/// The rank's block of spec's generated grid, with its halo.
PartPayload grid_payload(const CaseSpec& spec)
{
    const ShapeGrid shape = *box_shape_grid(spec.mesh);
    GridPart made = grid_part(shape, grid_blocks(shape.grid, world().size()), world().rank());
    HaloPlan plan = halo_plan_from_owners(world(), made.numbering);
    return PartPayload{std::move(made.part), std::move(made.numbering), std::move(plan)};
}

/// A hierarchy across ranks updated with another kappa's rows on the same parts (the next
/// point of a coefficient sweep), AMG alone and pmg down the grid: with kappa doubled (the
/// same strong couplings, so the same aggregates) it applies as a new setup on those rows
/// does; with another kappa every distributed Galerkin level is exact again and CG with it
/// converges to that kappa's one-rank solution; rows of a coarser mesh are refused on every rank.
void check_updated_hierarchy(const RankSetup& on, unsigned seed)
{
    const CaseSpec first = cube_case("1 + x*y", "0.125"), doubled = cube_case("2*(1 + x*y)", "0.125"),
                   other = cube_case("1 + 20*y*z", "0.125"), coarser = cube_case("1 + x*y", "0.25");
    const PartPayload part = grid_payload(first), coarser_part = grid_payload(coarser);
    const auto system_of = [&](const CaseSpec& spec, const PartPayload& p) {
        return build_distributed_system<double>(on.exec, p, spec, *on.comm);
    };
    const DistributedSystem<double> a = system_of(first, part), b = system_of(doubled, part),
                                    c = system_of(other, part), d = system_of(coarser, coarser_part);
    const std::vector<PartSpace<double>> grid = preconditioner_spaces<double>(first, part, a.permutation, on.exec, world());
    for (const bool pmg : {false, true}) {
        SCOPED_TRACE(pmg ? "pmg" : "amg");
        const std::vector<PartSpace<double>>* spaces = pmg ? &grid : nullptr;
        AmgOptions options;
        // Levels split among the ranks (with pmg, aggregated ones below the grids too), and
        // gathered ones below.
        options.gather_rows = pmg ? 10 : 40;
        DistributedAmg<double> kept(*a.op, distributed_rows(a, world(), *on.comm, spaces), options);
        kept.update(*b.op, distributed_rows(b, world(), *on.comm, spaces));
        const DistributedAmg<double> fresh(*b.op, distributed_rows(b, world(), *on.comm, spaces), options);
        EXPECT_EQ(kept.report().value("hierarchy", ""), "updated");
        EXPECT_GT(kept.update_seconds(), 0.0);
        ASSERT_EQ(kept.levels().size(), fresh.levels().size());
        ASSERT_NE(kept.report()["gathered"], nullptr);
        expect_same_cycles(kept, fresh, on.exec, seed + 3);
        kept.update(*c.op, distributed_rows(c, world(), *on.comm, spaces));
        for (int l = 0; l < kept.distributed_levels(); ++l)
            EXPECT_LT(kept.galerkin_defect(static_cast<std::size_t>(l), seed + static_cast<unsigned>(l)), 1e-13)
                << "level " << l << ", seed " << seed;
        const CaseMesh input = load_case_mesh(other, Executor::create_cpu());
        LinearSystem<double> whole = make_discretisation<double>(other, input)->assemble(Executor::create_cpu());
        std::vector<Csr<double>> transfers = pmg_interpolations<double>(input.mesh, Executor::create_cpu());
        const Csr<double> whole_matrix = whole.matrix.clone_to(Executor::create_cpu());
        const auto whole_op = build_format<double>("csr", std::move(whole.matrix), {});
        const AmgPreconditioner<double> serial(*whole_op.op, whole_matrix, AmgOptions{}, pmg ? &transfers : nullptr);
        expect_solves_as_one_rank({*whole_op.op, whole.rhs.to_host(), whole.initial_guess.to_host()}, serial,
                                  {*c.op, c.rhs.to_host(), c.initial_guess.to_host()}, kept, part.numbering, on, 3);
        const std::vector<PartSpace<double>> coarser_grid =
            preconditioner_spaces<double>(coarser, coarser_part, d.permutation, on.exec, world());
        EXPECT_THROW(kept.update(*d.op, distributed_rows(d, world(), *on.comm, pmg ? &coarser_grid : nullptr)),
                     std::invalid_argument);
    }
}

TEST(MpiRanks, AHierarchyAcrossRanksTakesTheNextSweepPointsValues)
{
    check_updated_hierarchy(mpi_setup(), shared_seed());
}

TEST(NcclRanks, AHierarchyAcrossRanksTakesTheNextSweepPointsValues)
{
    on_gpus(check_updated_hierarchy);
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
