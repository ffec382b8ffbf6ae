// Expression: muParser compiled once per object, evaluated point by point on the host.
#include "assembly/expression.hpp"

#include <cctype>

#include <algorithm>

#include <omp.h>

#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <muParser.h>

namespace gpufem {

namespace {

/// fn(v) through the shared formulas, one distinct function per F (muParser stores the
/// pointer; translate() maps it back to F).
template <ExprFunction F>
double unary_function(double v)
{
    return apply_unary(F, v);
}

/// fn(args) of a variadic function, one distinct function per F.
template <ExprFunction F>
double variadic_function(const double* args, int n)
{
    return apply_variadic(F, args, n);
}

double atan2_function(double y, double x) { return ::atan2(y, x); }

/// A function of the expression language: its name(s) and the callback muParser calls.
struct UnaryEntry {
    const char* name;
    ExprFunction fn;
    mu::fun_type1 callback;
};
struct VariadicEntry {
    const char* name;
    ExprFunction fn;
    mu::multfun_type callback;
};

/// Every function of the expression language (muParser's built-in set, same formulas).
constexpr UnaryEntry unary_functions[] = {
    {"sin", ExprFunction::sin, unary_function<ExprFunction::sin>},
    {"cos", ExprFunction::cos, unary_function<ExprFunction::cos>},
    {"tan", ExprFunction::tan, unary_function<ExprFunction::tan>},
    {"asin", ExprFunction::asin, unary_function<ExprFunction::asin>},
    {"acos", ExprFunction::acos, unary_function<ExprFunction::acos>},
    {"atan", ExprFunction::atan, unary_function<ExprFunction::atan>},
    {"sinh", ExprFunction::sinh, unary_function<ExprFunction::sinh>},
    {"cosh", ExprFunction::cosh, unary_function<ExprFunction::cosh>},
    {"tanh", ExprFunction::tanh, unary_function<ExprFunction::tanh>},
    {"asinh", ExprFunction::asinh, unary_function<ExprFunction::asinh>},
    {"acosh", ExprFunction::acosh, unary_function<ExprFunction::acosh>},
    {"atanh", ExprFunction::atanh, unary_function<ExprFunction::atanh>},
    {"log", ExprFunction::log, unary_function<ExprFunction::log>},
    {"ln", ExprFunction::log, unary_function<ExprFunction::log>},
    {"log2", ExprFunction::log2, unary_function<ExprFunction::log2>},
    {"log10", ExprFunction::log10, unary_function<ExprFunction::log10>},
    {"exp", ExprFunction::exp, unary_function<ExprFunction::exp>},
    {"sqrt", ExprFunction::sqrt, unary_function<ExprFunction::sqrt>},
    {"abs", ExprFunction::abs, unary_function<ExprFunction::abs>},
    {"sign", ExprFunction::sign, unary_function<ExprFunction::sign>},
    {"rint", ExprFunction::rint, unary_function<ExprFunction::rint>},
};
constexpr VariadicEntry variadic_functions[] = {
    {"sum", ExprFunction::sum, variadic_function<ExprFunction::sum>},
    {"avg", ExprFunction::avg, variadic_function<ExprFunction::avg>},
    {"min", ExprFunction::min, variadic_function<ExprFunction::min>},
    {"max", ExprFunction::max, variadic_function<ExprFunction::max>},
};
constexpr mu::fun_type1 negate_callback = unary_function<ExprFunction::negate>;
constexpr mu::fun_type1 plus_callback = unary_function<ExprFunction::identity>;

/// The raw pointer muParser keeps for a callback.
template <typename F>
mu::erased_fun_type erased(F callback)
{
    return reinterpret_cast<mu::erased_fun_type>(callback);
}

/// The names of the functions an expression may call.
std::vector<std::string> function_names()
{
    std::vector<std::string> names;
    for (const UnaryEntry& e : unary_functions) names.emplace_back(e.name);
    names.emplace_back("atan2");
    for (const VariadicEntry& e : variadic_functions) names.emplace_back(e.name);
    return names;
}

/// The first name in text written as a call, name(...), that is no known function ("" if none).
std::string unknown_function(const std::string& text, const std::vector<std::string>& known)
{
    for (std::size_t i = 0; i < text.size();) {
        if (!(std::isalpha(static_cast<unsigned char>(text[i])) || text[i] == '_')) {
            ++i;
            continue;
        }
        const std::size_t start = i;
        while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
        std::size_t after = i;
        while (after < text.size() && text[after] == ' ') ++after;
        const std::string name = text.substr(start, i - start);
        if (after < text.size() && text[after] == '(' &&
            std::find(known.begin(), known.end(), name) == known.end())
            return name;
    }
    return "";
}

/// "invalid expression 'TEXT': <muParser message> at position N" (position added when
/// muParser's message does not already give it), with a hint for unknown names.
std::string describe_error(const std::string& text, const mu::Parser::exception_type& error)
{
    std::string message = error.GetMsg();
    while (!message.empty() && (message.back() == '.' || message.back() == ' ')) {
        message.pop_back();
    }
    if (message.find("position") == std::string::npos && error.GetPos() >= 0) {
        message += " at position " + std::to_string(error.GetPos());
    }
    if (error.GetCode() == mu::ecUNASSIGNABLE_TOKEN) {
        message += " (variables are x, y, z; constants pi, e)";
    }
    const std::vector<std::string> known = function_names();
    if (const std::string name = unknown_function(text, known); !name.empty()) {
        // muParser reads an unknown name before '(' as a variable and then reports the
        // parenthesis; name the function instead.
        std::string list;
        for (const std::string& known_name : known) list += (list.empty() ? "" : " ") + known_name;
        return "invalid expression '" + text + "': unknown function '" + name +
               "' (functions: " + list + ")";
    }
    return "invalid expression '" + text + "': " + message;
}

/// "invalid expression 'TEXT': what" for a construct the translation does not take.
std::invalid_argument untranslatable(const std::string& text, const std::string& what)
{
    return std::invalid_argument("invalid expression '" + text + "': " + what);
}

/// muParser's bytecode of a parsed, evaluated parser as an ExpressionProgram; vars are the
/// addresses bound to x, y, z.
ExpressionProgram translate(const mu::Parser& parser, const double* const (&vars)[3],
                            const std::string& text)
{
    const mu::ParserByteCode& bytecode = parser.GetByteCode();
    const mu::SToken* tokens = bytecode.GetBase();
    ExpressionProgram program;
    int depth = 0;
    bool reads_variable = false;
    const auto variable_index = [&](const double* ptr) -> std::int16_t {
        for (std::int16_t v = 0; v < 3; ++v)
            if (ptr == vars[v]) return v;
        throw untranslatable(text, "reads a variable other than x, y, z");
    };
    const auto push = [&](int change) {
        depth += change;
        program.stack_depth = std::max(program.stack_depth, depth);
    };
    for (std::size_t k = 0; k < bytecode.GetSize(); ++k) {
        const mu::SToken& t = tokens[k];
        ExprInstruction in;
        switch (t.Cmd) {
        case mu::cmEND: in.op = ExprOp::end; break;
        case mu::cmVAL: in.op = ExprOp::value, in.a = t.Val.data2, push(1); break;
        case mu::cmVAR:
        case mu::cmVARMUL:
        case mu::cmVARPOW2:
        case mu::cmVARPOW3:
        case mu::cmVARPOW4:
            in.op = t.Cmd == mu::cmVAR       ? ExprOp::variable
                    : t.Cmd == mu::cmVARMUL  ? ExprOp::scaled_variable
                    : t.Cmd == mu::cmVARPOW2 ? ExprOp::variable_squared
                    : t.Cmd == mu::cmVARPOW3 ? ExprOp::variable_cubed
                                             : ExprOp::variable_fourth;
            in.arg = variable_index(t.Val.ptr);
            in.a = t.Val.data, in.b = t.Val.data2;
            reads_variable = true;
            push(1);
            break;
        case mu::cmLE: in.op = ExprOp::le, push(-1); break;
        case mu::cmGE: in.op = ExprOp::ge, push(-1); break;
        case mu::cmNEQ: in.op = ExprOp::ne, push(-1); break;
        case mu::cmEQ: in.op = ExprOp::eq, push(-1); break;
        case mu::cmLT: in.op = ExprOp::lt, push(-1); break;
        case mu::cmGT: in.op = ExprOp::gt, push(-1); break;
        case mu::cmADD: in.op = ExprOp::add, push(-1); break;
        case mu::cmSUB: in.op = ExprOp::sub, push(-1); break;
        case mu::cmMUL: in.op = ExprOp::mul, push(-1); break;
        case mu::cmDIV: in.op = ExprOp::div, push(-1); break;
        case mu::cmPOW: in.op = ExprOp::pow, push(-1); break;
        case mu::cmLAND: in.op = ExprOp::logical_and, push(-1); break;
        case mu::cmLOR: in.op = ExprOp::logical_or, push(-1); break;
        // A ternary: the "then" and "else" branches start at the same depth.
        case mu::cmIF: in.op = ExprOp::jump_if_zero, in.arg = t.Oprt.offset, push(-1); break;
        case mu::cmELSE: in.op = ExprOp::jump, in.arg = t.Oprt.offset, push(-1); break;
        case mu::cmENDIF: in.op = ExprOp::no_op; break;
        case mu::cmFUNC: {
            const mu::erased_fun_type raw = t.Fun.cb._pRawFun;
            bool found = false;
            if (t.Fun.argc == 1) {
                in.op = ExprOp::unary;
                if (raw == erased(negate_callback)) in.fn = ExprFunction::negate, found = true;
                if (raw == erased(plus_callback)) in.fn = ExprFunction::identity, found = true;
                for (const UnaryEntry& e : unary_functions)
                    if (raw == erased(e.callback)) in.fn = e.fn, found = true;
            } else if (t.Fun.argc == 2 && raw == erased(&atan2_function)) {
                in.op = ExprOp::binary, in.fn = ExprFunction::atan2, found = true;
                push(-1);
            } else if (t.Fun.argc < 0) {
                in.op = ExprOp::variadic, in.arg = static_cast<std::int16_t>(-t.Fun.argc);
                for (const VariadicEntry& e : variadic_functions)
                    if (raw == erased(e.callback)) in.fn = e.fn, found = true;
                push(1 - in.arg);
            }
            if (!found) throw untranslatable(text, "calls a function the device cannot evaluate");
            break;
        }
        case mu::cmASSIGN: throw untranslatable(text, "assignments (=) are not allowed");
        default: throw untranslatable(text, "uses an operator the device cannot evaluate");
        }
        program.code.push_back(in);
        if (in.op == ExprOp::end) break;
    }
    if (program.code.empty() || program.code.back().op != ExprOp::end)
        program.code.push_back(ExprInstruction{});
    if (program.stack_depth > expression_stack_limit)
        throw untranslatable(text, "nested too deeply (needs " +
                                       std::to_string(program.stack_depth) +
                                       " stack slots, at most " +
                                       std::to_string(expression_stack_limit) + ")");
    program.constant = !reads_variable;
    if (program.constant)
        program.constant_value = evaluate_program(program.code.data(), 0.0, 0.0, 0.0);
    return program;
}

}  // namespace

/// The parser and the variables it reads; heap-allocated so that the addresses bound with
/// DefineVar stay valid when the Expression moves.
struct Expression::Impl {
    mu::Parser parser;
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
};

Expression::Expression(std::string text) : text_(std::move(text)), impl_(std::make_unique<Impl>())
{
    mu::Parser& parser = impl_->parser;
    try {
        parser.DefineVar("x", &impl_->x);
        parser.DefineVar("y", &impl_->y);
        parser.DefineVar("z", &impl_->z);
        parser.DefineConst("pi", std::numbers::pi);
        parser.DefineConst("e", std::numbers::e);
        // The built-in functions and signs, replaced by ours (same names, same formulas) so
        // that every callback in the bytecode is known to translate().
        parser.ClearFun();
        for (const UnaryEntry& e : unary_functions) parser.DefineFun(e.name, e.callback);
        for (const VariadicEntry& e : variadic_functions) parser.DefineFun(e.name, e.callback);
        parser.DefineFun("atan2", &atan2_function);
        parser.ClearInfixOprt();
        parser.DefineInfixOprt("-", negate_callback);
        parser.DefineInfixOprt("+", plus_callback);
        parser.SetExpr(text_);
        // GetUsedVar parses the whole text (syntax errors surface here) and lists every name
        // used as a variable, including undefined ones; Eval then rejects those.
        const mu::varmap_type& used = parser.GetUsedVar();
        constant_ = used.empty();
        parser.Eval();
        if (parser.GetNumResults() != 1) {
            throw std::invalid_argument("invalid expression '" + text_ + "': it gives " +
                                        std::to_string(parser.GetNumResults()) +
                                        " comma-separated values; expected one");
        }
        program_ = translate(parser, {&impl_->x, &impl_->y, &impl_->z}, text_);
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate(double x, double y, double z) const
{
    impl_->x = x;
    impl_->y = y;
    impl_->z = z;
    try {
        return impl_->parser.Eval();
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

// muParser's bulk Eval(results, n) is not used: the Debian build runs it with OpenMP and
// calls omp_set_num_threads(min(max threads, 16)), a process-wide side effect, and it
// re-parses the text on every call. One compiled Eval per point costs the same per thread
// (~35 ns for "sin(pi*x)*sin(pi*y) + x^2*exp(-y)") and needs no extra memory.
void Expression::evaluate(std::span<const double> xyz, std::span<double> out) const
{
    if (xyz.size() != 3 * out.size()) {
        throw std::invalid_argument("Expression::evaluate('" + text_ + "'): " +
                                    std::to_string(xyz.size()) + " coordinates for " +
                                    std::to_string(out.size()) + " values (expected 3 per value)");
    }
    if (constant_ && !out.empty()) {
        const double value = evaluate(0.0, 0.0, 0.0);
        for (double& v : out) {
            v = value;
        }
        return;
    }
    // Large batches are split over OpenMP threads, each with its own compiled copy (a muParser
    // object holds its variables, so one object cannot be shared between threads).
    constexpr std::size_t parallel_threshold = 1 << 16;
    if (out.size() >= parallel_threshold && omp_get_max_threads() > 1) {
        const long long n = static_cast<long long>(out.size());
        bool failed = false;
#pragma omp parallel reduction(|| : failed)
        {
            try {
                const Expression local(text_);
#pragma omp for schedule(static)
                for (long long i = 0; i < n; ++i)
                    out[i] = local.evaluate(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
            } catch (const std::exception&) {
                failed = true;  // exceptions must not leave an OpenMP region
            }
        }
        if (!failed) return;
        // fall through: the serial loop reports the error with its message
    }
    Impl& impl = *impl_;
    try {
        for (std::size_t i = 0; i < out.size(); ++i) {
            impl.x = xyz[3 * i];
            impl.y = xyz[3 * i + 1];
            impl.z = xyz[3 * i + 2];
            out[i] = impl.parser.Eval();
        }
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

}  // namespace gpufem
