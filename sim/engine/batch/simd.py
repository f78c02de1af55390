"""Vectors of LANES float64 (one world per lane) for kernels that run a block of worlds per instruction.

A `Vec` is an LLVM `<LANES x double>` value: +, -, *, /, unary minus, abs, comparisons (giving a `Mask`,
`<LANES x i1>`), &, |, ~ on masks, select, sqrt, lane access, and loads / stores of one row of LANES doubles.
Every lane gets the IEEE operation numba emits for the scalar expression (fadd, fsub, fmul, fdiv, `-0.0 - x` for
negation, ordered compares except `!=`, correctly rounded sqrt, no contraction into FMA), in the order the
expression is written, so a lane's result is bitwise the scalar kernel's.  sin and cos run the scalar libm call
lane by lane (a vector math library would round differently).

Mixed Vec / float operands broadcast the float.  Rows are addressed in C-contiguous float64 arrays whose last
axis has LANES elements: `vld(a, r)` reads a.flat[r*LANES:(r+1)*LANES].
"""

import math
import operator
import os

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.datamodel import models, register_default
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import ConcreteTemplate, infer_global, signature
from numba.extending import intrinsic

from sim.jit import njit

# doubles per vector: 4 fill an AVX2 register, 8 an AVX-512 one.  NUMJOCO_SIMD_LANES=8 selects 8 for a measurement;
# numba's cache does not see this constant, so a process that changes it needs a kernel cache of its own
# (NUMJOCO_CACHE_DIR)
LANES = int(os.environ.get("NUMJOCO_SIMD_LANES", "4"))
if LANES not in (4, 8):
    raise ValueError("NUMJOCO_SIMD_LANES must be 4 or 8, got %d" % LANES)


class VecType(types.Type):
    """LANES float64 lanes (LLVM vector)."""

    def __init__(self, lanes):
        self.lanes = lanes
        super().__init__(name="f64x%d" % lanes)


class MaskType(types.Type):
    """LANES booleans (LLVM <LANES x i1>)."""

    def __init__(self, lanes):
        self.lanes = lanes
        super().__init__(name="mask%d" % lanes)


vec = VecType(LANES)
mask = MaskType(LANES)
_VT = ir.VectorType(ir.DoubleType(), LANES)
_MT = ir.VectorType(ir.IntType(1), LANES)
_IT = ir.VectorType(ir.IntType(32), LANES)


@register_default(VecType)
class _VecModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.DoubleType(), fe_type.lanes))


@register_default(MaskType)
class _MaskModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.IntType(1), fe_type.lanes))


def _splat(builder, x):
    """<LANES x double> with x in every lane."""
    v = builder.insert_element(ir.Constant(_VT, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(v, ir.Constant(_VT, ir.Undefined), ir.Constant(_IT, [0] * LANES))


def _operands(context, builder, sig, args):
    """Both operands as vectors (a float operand broadcast)."""
    out = []
    for t, a in zip(sig.args, args):
        if isinstance(t, VecType):
            out.append(a)
        else:
            out.append(_splat(builder, context.cast(builder, a, t, types.float64)))
    return out


_ARITH = (
    (operator.add, "fadd"),
    (operator.sub, "fsub"),
    (operator.mul, "fmul"),
    (operator.truediv, "fdiv"),
    (operator.iadd, "fadd"),
    (operator.isub, "fsub"),
    (operator.imul, "fmul"),
    (operator.itruediv, "fdiv"),
)
_CMP = (
    (operator.lt, "<", True),
    (operator.le, "<=", True),
    (operator.gt, ">", True),
    (operator.ge, ">=", True),
    (operator.eq, "==", True),
    (operator.ne, "!=", False),
)


def _register_arith(op, inst):
    @infer_global(op)
    class _T(ConcreteTemplate):
        cases = [signature(vec, vec, vec), signature(vec, vec, types.float64), signature(vec, types.float64, vec)]

    def impl(context, builder, sig, args):
        a, b = _operands(context, builder, sig, args)
        return getattr(builder, inst)(a, b)

    for s in _T.cases:
        lower_builtin(op, *s.args)(impl)


def _register_cmp(op, pred, ordered):
    @infer_global(op)
    class _T(ConcreteTemplate):
        cases = [signature(mask, vec, vec), signature(mask, vec, types.float64), signature(mask, types.float64, vec)]

    def impl(context, builder, sig, args):
        a, b = _operands(context, builder, sig, args)
        # numba's scalar float compares: ordered, except != (unordered), numba.cpython.numbers
        return builder.fcmp_ordered(pred, a, b) if ordered else builder.fcmp_unordered(pred, a, b)

    for s in _T.cases:
        lower_builtin(op, *s.args)(impl)


for _op, _inst in _ARITH:
    _register_arith(_op, _inst)
for _op, _pred, _ord in _CMP:
    _register_cmp(_op, _pred, _ord)


@infer_global(operator.neg)
class _Neg(ConcreteTemplate):
    cases = [signature(vec, vec)]


@lower_builtin(operator.neg, vec)
def _neg_impl(context, builder, sig, args):
    # as numba.cpython.mathimpl.negate_real: -0.0 - x
    return builder.fsub(_splat(builder, ir.Constant(ir.DoubleType(), -0.0)), args[0])


for _op, _inst in ((operator.and_, "and_"), (operator.or_, "or_"), (operator.iand, "and_"), (operator.ior, "or_")):

    def _mk(op, inst):
        @infer_global(op)
        class _T(ConcreteTemplate):
            cases = [signature(mask, mask, mask)]

        @lower_builtin(op, mask, mask)
        def impl(context, builder, sig, args):
            return getattr(builder, inst)(args[0], args[1])

    _mk(_op, _inst)


@infer_global(operator.invert)
class _Inv(ConcreteTemplate):
    cases = [signature(mask, mask)]


@lower_builtin(operator.invert, mask)
def _inv_impl(context, builder, sig, args):
    return builder.not_(args[0])


@intrinsic
def splat(typingctx, x):
    """Vec with x (float) in every lane."""

    def codegen(context, builder, sig, args):
        return _splat(builder, context.cast(builder, args[0], sig.args[0], types.float64))

    return vec(x), codegen


@intrinsic
def select(typingctx, m, a, b):
    """Lane-wise a where m else b (Vec or float operands)."""
    if not isinstance(m, MaskType):
        return None

    def codegen(context, builder, sig, args):
        x, y = _operands(context, builder, signature(vec, *sig.args[1:]), args[1:])
        return builder.select(args[0], x, y)

    return vec(m, a, b), codegen


def _unary_intrinsic(name):
    def typer(typingctx, a):
        if not isinstance(a, VecType):
            return None

        def codegen(context, builder, sig, args):
            fn = cgutils.get_or_insert_function(
                builder.module, ir.FunctionType(_VT, [_VT]), "llvm.%s.v%df64" % (name, LANES)
            )
            return builder.call(fn, [args[0]])

        return vec(a), codegen

    return typer


vsqrt = intrinsic(_unary_intrinsic("sqrt"))
vsqrt.__doc__ = "Lane-wise correctly rounded square root (as math.sqrt)."
vabs = intrinsic(_unary_intrinsic("fabs"))
vabs.__doc__ = "Lane-wise |x| (as abs of a float)."
vfloor = intrinsic(_unary_intrinsic("floor"))
vfloor.__doc__ = "Lane-wise math.floor, as a float."


@intrinsic
def lane(typingctx, v, k):
    """Lane k of v (float)."""

    def codegen(context, builder, sig, args):
        return builder.extract_element(args[0], args[1])

    return types.float64(v, k), codegen


@intrinsic
def with_lane(typingctx, v, k, x):
    """v with lane k set to x."""

    def codegen(context, builder, sig, args):
        return builder.insert_element(args[0], context.cast(builder, args[2], sig.args[2], types.float64), args[1])

    return vec(v, k, x), codegen


@intrinsic
def mask_lane(typingctx, m, k):
    """Lane k of a mask (bool)."""

    def codegen(context, builder, sig, args):
        return builder.extract_element(args[0], args[1])

    return types.boolean(m, k), codegen


@intrinsic
def any_lane(typingctx, m):
    """True when some lane of m is set."""
    if not isinstance(m, MaskType):
        return None

    def codegen(context, builder, sig, args):
        bits = builder.bitcast(args[0], ir.IntType(LANES))
        return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(LANES), 0))

    return types.boolean(m), codegen


def _row_ptr(context, builder, aryty, ary, r):
    arr = context.make_array(aryty)(context, builder, ary)
    off = builder.mul(r, ir.Constant(r.type, LANES))
    return builder.bitcast(builder.gep(arr.data, [off]), _VT.as_pointer())


def _row_array(a):
    return isinstance(a, types.Array) and a.layout == "C" and a.dtype == types.float64


@intrinsic
def vld(typingctx, a, r):
    """Row r of LANES doubles of a C-contiguous float64 array (a.flat[r*LANES:(r+1)*LANES]) as a Vec."""
    if not _row_array(a):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(
            _row_ptr(context, builder, sig.args[0], args[0], context.cast(builder, args[1], sig.args[1], types.intp)),
            align=8,
        )

    return vec(a, r), codegen


@intrinsic
def vst(typingctx, a, r, v):
    """Store Vec v (or a float, broadcast) as row r of a C-contiguous float64 array."""
    if not _row_array(a):
        return None

    def codegen(context, builder, sig, args):
        x = _operands(context, builder, signature(vec, sig.args[2], sig.args[2]), [args[2], args[2]])[0]
        builder.store(
            x,
            _row_ptr(context, builder, sig.args[0], args[0], context.cast(builder, args[1], sig.args[1], types.intp)),
            align=8,
        )
        return context.get_dummy_value()

    return types.void(a, r, v), codegen


@njit(cache=True, always_inline=True)
def vsin(v):
    """Lane-wise math.sin (libm, lane by lane)."""
    r = v
    for k in range(LANES):
        r = with_lane(r, k, math.sin(lane(v, k)))
    return r


@njit(cache=True, always_inline=True)
def vcos(v):
    """Lane-wise math.cos (libm, lane by lane)."""
    r = v
    for k in range(LANES):
        r = with_lane(r, k, math.cos(lane(v, k)))
    return r


def _elem_ptr(context, builder, aryty, ary, off):
    arr = context.make_array(aryty)(context, builder, ary)
    return builder.bitcast(builder.gep(arr.data, [off]), _VT.as_pointer())


def _transpose_tile(builder, rows):
    """The LANES x LANES transpose of LANES <LANES x double> values (LLVM turns the element moves into shuffles)."""
    i32 = ir.IntType(32)
    out = []
    for j in range(LANES):
        v = ir.Constant(_VT, ir.Undefined)
        for k in range(LANES):
            v = builder.insert_element(v, builder.extract_element(rows[k], ir.Constant(i32, j)), ir.Constant(i32, k))
        out.append(v)
    return out


@intrinsic
def tile_to_rows(typingctx, blk, r, dst, off, n):
    """dst.flat[off + l*n + j] = blk row r + j, lane l, for j, l < LANES: LANES consecutive block rows of one full
    block stored as LANES consecutive elements of each of its LANES worlds' Data rows (a LANES x LANES transpose)."""
    if not (_row_array(blk) and _row_array(dst)):
        return None

    def codegen(context, builder, sig, args):
        ib = context.cast(builder, args[1], sig.args[1], types.intp)
        io = context.cast(builder, args[3], sig.args[3], types.intp)
        inn = context.cast(builder, args[4], sig.args[4], types.intp)
        rows = []
        for j in range(LANES):
            rj = builder.add(ib, ir.Constant(ib.type, j))
            rows.append(builder.load(_row_ptr(context, builder, sig.args[0], args[0], rj), align=8))
        for l, v in enumerate(_transpose_tile(builder, rows)):
            o = builder.add(io, builder.mul(inn, ir.Constant(io.type, l)))
            builder.store(v, _elem_ptr(context, builder, sig.args[2], args[2], o), align=8)
        return context.get_dummy_value()

    return types.void(blk, r, dst, off, n), codegen


@intrinsic
def rows_to_tile(typingctx, src, off, n, blk, r):
    """blk row r + j, lane l = src.flat[off + l*n + j] for j, l < LANES: the inverse of tile_to_rows."""
    if not (_row_array(src) and _row_array(blk)):
        return None

    def codegen(context, builder, sig, args):
        io = context.cast(builder, args[1], sig.args[1], types.intp)
        inn = context.cast(builder, args[2], sig.args[2], types.intp)
        ib = context.cast(builder, args[4], sig.args[4], types.intp)
        rows = []
        for l in range(LANES):
            o = builder.add(io, builder.mul(inn, ir.Constant(io.type, l)))
            rows.append(builder.load(_elem_ptr(context, builder, sig.args[0], args[0], o), align=8))
        for j, v in enumerate(_transpose_tile(builder, rows)):
            rj = builder.add(ib, ir.Constant(ib.type, j))
            builder.store(v, _row_ptr(context, builder, sig.args[3], args[3], rj), align=8)
        return context.get_dummy_value()

    return types.void(src, off, n, blk, r), codegen
