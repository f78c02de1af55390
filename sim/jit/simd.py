"""Vectors of LANES float64 (one world per lane) for kernels that run a block of worlds per instruction.

Two layers:
- `Vec` / `Mask` and their operations (below), used directly by hand-vectorised code (the renderer's floor rows);
- lane arrays (`LaneArray`, `BlockIdx`, further down): what lets one engine kernel written for one world compile
  for a block of LANES worlds.  A kernel `f(m, d, w)` reads `d.qpos[w]` and indexes the row with ints; called with
  a block Data struct (fields stored world-minor, (nblock, *per-world shape, LANES)) and a `BlockIdx`, the same
  source gets a `LaneArray` for the row, a `Vec` for each element, and `Vec` arithmetic throughout.  Floats mixed
  with Vecs broadcast (a variable assigned a float, then a Vec, is a Vec), `math.sqrt`, `abs`, `min`, `max`,
  `math.sin` / `cos` / `exp` / ... have lane-wise forms, and `where(c, a, b)` picks per lane (a scalar `a if c else
  b` for one world).  State-dependent branches are the one thing such a kernel must not contain: they are written
  with `where` (both sides computed, the same IEEE value picked per lane).

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
from numba.core.imputils import lower_builtin, lower_cast, lower_getattr
from numba.core.typing.templates import (
    AbstractTemplate,
    AttributeTemplate,
    ConcreteTemplate,
    infer_getattr,
    infer_global,
    signature,
)
from numba.extending import intrinsic, overload

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


for _op, _inst in (
    (operator.and_, "and_"),
    (operator.or_, "or_"),
    (operator.iand, "and_"),
    (operator.ior, "or_"),
    (operator.ne, "xor"),  # two masks differ in a lane: exclusive or
):

    def _mk(op, inst):
        # a bool operand is broadcast (a generic kernel's flag that is a Mask for a block, a bool for one world)
        @infer_global(op)
        class _T(ConcreteTemplate):
            cases = [
                signature(mask, mask, mask),
                signature(mask, mask, types.boolean),
                signature(mask, types.boolean, mask),
            ]

        def impl(context, builder, sig, args):
            a, b = (_mask_operand(context, builder, t, x) for t, x in zip(sig.args, args))
            return getattr(builder, inst)(a, b)

        for s in _T.cases:
            lower_builtin(op, *s.args)(impl)

    _mk(_op, _inst)


def _mask_operand(context, builder, ty, x):
    """x as <LANES x i1> (a bool broadcast)."""
    if isinstance(ty, MaskType):
        return x
    b = context.cast(builder, x, ty, types.boolean)
    v = builder.insert_element(ir.Constant(_MT, ir.Undefined), b, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(v, ir.Constant(_MT, ir.Undefined), ir.Constant(_IT, [0] * LANES))


def _mask_unify(self, typingctx, other):
    if isinstance(other, types.Boolean):
        return self
    return None


MaskType.unify = _mask_unify


@lower_cast(types.Boolean, MaskType)
def _bool_to_mask(context, builder, fromty, toty, val):
    return _mask_operand(context, builder, fromty, val)


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


def _flat_ptr(context, builder, aryty, ary, off):
    arr = context.make_array(aryty)(context, builder, ary)
    return builder.gep(arr.data, [off])


@intrinsic
def ld_flat(typingctx, a, off):
    """a.flat[off] of a C-contiguous float64 array (no reshape: numba's reshape calls a C helper every time)."""
    if not _row_array(a):
        return None

    def codegen(context, builder, sig, args):
        o = context.cast(builder, args[1], sig.args[1], types.intp)
        return builder.load(_flat_ptr(context, builder, sig.args[0], args[0], o), align=8)

    return types.float64(a, off), codegen


@intrinsic
def st_flat(typingctx, a, off, x):
    """a.flat[off] = x for a C-contiguous float64 array."""
    if not _row_array(a):
        return None

    def codegen(context, builder, sig, args):
        o = context.cast(builder, args[1], sig.args[1], types.intp)
        v = context.cast(builder, args[2], sig.args[2], types.float64)
        builder.store(v, _flat_ptr(context, builder, sig.args[0], args[0], o), align=8)
        return context.get_dummy_value()

    return types.void(a, off, x), codegen


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


# ------------------------------------------------------------------------------------------------------------
# Vec with floats: unification (a float variable later assigned a Vec becomes a Vec) and the broadcast cast.


def _vec_unify(self, typingctx, other):
    if isinstance(other, (types.Float, types.Integer, types.Boolean)):
        return self
    return None


VecType.unify = _vec_unify


@lower_cast(types.Float, VecType)
@lower_cast(types.Integer, VecType)
def _float_to_vec(context, builder, fromty, toty, val):
    return _splat(builder, context.cast(builder, val, fromty, types.float64))


# ------------------------------------------------------------------------------------------------------------
# Lane arrays: one block's view of a world-minor field.  A LaneArray of per-world shape (n0, n1, ...) points at
# n0*n1*...*LANES contiguous doubles, element [i, j, ...] of lane l at flat index ((i*n1 + j)*... )*LANES + l.
# Indexed with as many ints as it has axes it gives a Vec; with fewer, a LaneArray of the remaining axes (as a
# C array's row).  No reference counting: the arrays belong to the block Data, which outlives every kernel call.


class LaneArrayType(types.Type):
    """Per-world array of ndim axes whose elements are Vecs (one block of a world-minor field)."""

    def __init__(self, ndim):
        self.ndim = ndim
        super().__init__(name="lanes%d" % ndim)


class BlockIdxType(types.Type):
    """The world index of a block kernel: block b of the block Data struct (`d.qpos[w]` is its LaneArray)."""

    def __init__(self):
        super().__init__(name="blockidx")


block_idx = BlockIdxType()


@register_default(LaneArrayType)
class _LaneArrayModel(models.StructModel):
    def __init__(self, dmm, fe_type):
        members = [("data", types.CPointer(types.float64)), ("shape", types.UniTuple(types.intp, fe_type.ndim))]
        super().__init__(dmm, fe_type, members)


@register_default(BlockIdxType)
class _BlockIdxModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.IntType(64))


@intrinsic
def block_index(typingctx, b):
    """The BlockIdx of block b (an int)."""

    def codegen(context, builder, sig, args):
        return context.cast(builder, args[0], sig.args[0], types.int64)

    return block_idx(b), codegen


@intrinsic
def block_number(typingctx, w):
    """The block number (int) of a BlockIdx."""

    def codegen(context, builder, sig, args):
        return args[0]

    return types.int64(w), codegen


def _intp(context, builder, val, ty):
    return context.cast(builder, val, ty, types.intp)


def _lane_view(context, builder, lty, data, shape):
    la = cgutils.create_struct_proxy(lty)(context, builder)
    la.data = data
    la.shape = cgutils.pack_array(builder, shape) if shape else context.get_constant_undef(la.shape.type)
    return la._getvalue()


def _index_list(context, builder, idxty, idx):
    """The ints of an index (an int or a tuple of ints) as intp values."""
    if isinstance(idxty, types.BaseTuple):
        return [_intp(context, builder, builder.extract_value(idx, k), t) for k, t in enumerate(idxty.types)]
    return [_intp(context, builder, idx, idxty)]


def _index_types(idx):
    if isinstance(idx, types.Integer):
        return 1
    if isinstance(idx, types.BaseTuple) and all(isinstance(t, types.Integer) for t in idx.types):
        return len(idx.types)
    return None


def _element(context, builder, lty, la, idxty, idx):
    """(pointer to the first double of the indexed element or sub-array, remaining shape values)."""
    st = cgutils.create_struct_proxy(lty)(context, builder, value=la)
    shape = cgutils.unpack_tuple(builder, st.shape, lty.ndim)
    ks = _index_list(context, builder, idxty, idx)
    off = ir.Constant(cgutils.intp_t, 0)
    for k, i in enumerate(ks):
        off = builder.add(builder.mul(off, shape[k]) if k else off, i)
    rest = shape[len(ks) :]
    for n in rest:
        off = builder.mul(off, n)
    off = builder.mul(off, ir.Constant(cgutils.intp_t, LANES))
    return builder.gep(st.data, [off]), rest


@infer_global(operator.getitem)
class _LaneGetItem(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) != 2:
            return None
        a, idx = args
        if isinstance(a, LaneArrayType):
            k = _index_types(idx)
            if k is None or k > a.ndim:
                return None
            return signature(vec if k == a.ndim else LaneArrayType(a.ndim - k), a, idx)
        if isinstance(a, types.Array) and isinstance(idx, BlockIdxType) and a.dtype == types.float64 and a.ndim >= 2:
            return signature(vec if a.ndim == 2 else LaneArrayType(a.ndim - 2), a, idx)
        k = _block_tuple(idx)
        if isinstance(a, types.Array) and k is not None and a.dtype == types.float64 and a.ndim - 2 >= k:
            # d.<field>[w, i, ...] of a block struct: the block's LaneArray indexed by i, ...
            return signature(vec if a.ndim - 2 == k else LaneArrayType(a.ndim - 2 - k), a, idx)
        return None


def _block_tuple(idx):
    """k when idx is a tuple (BlockIdx, k ints), else None."""
    if (
        isinstance(idx, types.BaseTuple)
        and len(idx.types) >= 2
        and isinstance(idx.types[0], BlockIdxType)
        and all(isinstance(t, types.Integer) for t in idx.types[1:])
    ):
        return len(idx.types) - 1
    return None


@infer_global(operator.setitem)
class _LaneSetItem(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) != 3:
            return None
        a, idx, v = args
        if not isinstance(v, (VecType, types.Float, types.Integer)):
            return None
        if isinstance(a, LaneArrayType) and _index_types(idx) == a.ndim:
            return signature(types.none, a, idx, v)
        if isinstance(a, types.Array) and isinstance(idx, BlockIdxType) and a.dtype == types.float64 and a.ndim == 2:
            return signature(types.none, a, idx, v)
        k = _block_tuple(idx)
        if isinstance(a, types.Array) and k is not None and a.dtype == types.float64 and a.ndim - 2 == k:
            # d.<field>[w, i, ...] = x of a block struct: one element of the block's LaneArray
            return signature(types.none, a, idx, v)
        return None


def _block_ptr(context, builder, aryty, ary, b):
    """Pointer to block b of a world-minor storage array (nblock, ..., LANES) and its per-world shape."""
    arr = context.make_array(aryty)(context, builder, ary)
    shape = cgutils.unpack_tuple(builder, arr.shape, aryty.ndim)
    per = ir.Constant(cgutils.intp_t, 1)
    for n in shape[1:]:
        per = builder.mul(per, n)
    return builder.gep(arr.data, [builder.mul(b, per)]), shape[1:-1]


@lower_builtin(operator.getitem, LaneArrayType, types.Integer)
@lower_builtin(operator.getitem, LaneArrayType, types.BaseTuple)
def _lane_getitem_impl(context, builder, sig, args):
    lty, idxty = sig.args
    ptr, rest = _element(context, builder, lty, args[0], idxty, args[1])
    if isinstance(sig.return_type, VecType):
        return builder.load(builder.bitcast(ptr, _VT.as_pointer()), align=8)
    return _lane_view(context, builder, sig.return_type, ptr, rest)


@lower_builtin(operator.getitem, types.Array, BlockIdxType)
def _block_getitem_impl(context, builder, sig, args):
    ptr, rest = _block_ptr(context, builder, sig.args[0], args[0], args[1])
    if isinstance(sig.return_type, VecType):
        return builder.load(builder.bitcast(ptr, _VT.as_pointer()), align=8)
    return _lane_view(context, builder, sig.return_type, ptr, rest)


def _block_tuple_element(context, builder, aryty, idxty, args):
    """d.<field>[w, i, ...] of a block struct (args: the array and the (BlockIdx, ints) index): (pointer to the
    element or sub-array of the block's LaneArray, its remaining shape values)."""
    ptr, rest = _block_ptr(context, builder, aryty, args[0], builder.extract_value(args[1], 0))
    lty = LaneArrayType(len(rest))
    la = _lane_view(context, builder, lty, ptr, rest)
    k = len(idxty.types) - 1
    sub = types.UniTuple(types.intp, k)
    ints = [_intp(context, builder, builder.extract_value(args[1], j + 1), idxty.types[j + 1]) for j in range(k)]
    tup = cgutils.pack_array(builder, ints) if k > 1 else ints[0]
    return _element(context, builder, lty, la, sub if k > 1 else types.intp, tup)


@lower_builtin(operator.getitem, types.Array, types.BaseTuple)
def _block_tuple_getitem_impl(context, builder, sig, args):
    aryty, idxty = sig.args
    if _block_tuple(idxty) is None:  # not ours: numba's own tuple indexing
        from numba.np.arrayobj import getitem_array_tuple

        return getitem_array_tuple(context, builder, sig, args)
    ptr2, rest2 = _block_tuple_element(context, builder, aryty, idxty, args)
    if isinstance(sig.return_type, VecType):
        return builder.load(builder.bitcast(ptr2, _VT.as_pointer()), align=8)
    return _lane_view(context, builder, sig.return_type, ptr2, rest2)


def _as_vec(context, builder, ty, v):
    if isinstance(ty, VecType):
        return v
    return _splat(builder, context.cast(builder, v, ty, types.float64))


@lower_builtin(operator.setitem, LaneArrayType, types.Integer, types.Any)
def _lane_setitem_impl(context, builder, sig, args):
    lty, idxty, vty = sig.args
    ptr, _ = _element(context, builder, lty, args[0], idxty, args[1])
    builder.store(_as_vec(context, builder, vty, args[2]), builder.bitcast(ptr, _VT.as_pointer()), align=8)
    return context.get_dummy_value()


@lower_builtin(operator.setitem, types.Array, BlockIdxType, types.Any)
def _block_setitem_impl(context, builder, sig, args):
    ptr, _ = _block_ptr(context, builder, sig.args[0], args[0], args[1])
    builder.store(_as_vec(context, builder, sig.args[2], args[2]), builder.bitcast(ptr, _VT.as_pointer()), align=8)
    return context.get_dummy_value()


@lower_builtin(operator.setitem, types.Array, types.Tuple, types.Any)
def _block_tuple_setitem_impl(context, builder, sig, args):
    aryty, idxty, vty = sig.args
    if _block_tuple(idxty) is None:  # not ours: numba's own tuple store
        from numba.np.arrayobj import setitem_array

        return setitem_array(context, builder, sig, args)
    ptr2, _ = _block_tuple_element(context, builder, aryty, idxty, args)
    builder.store(_as_vec(context, builder, vty, args[2]), builder.bitcast(ptr2, _VT.as_pointer()), align=8)
    return context.get_dummy_value()


def _slice_index(idx):
    """k when idx is k ints followed by one slice (or a slice alone: k = 0), else None."""
    if isinstance(idx, types.SliceType):
        return 0
    if (
        isinstance(idx, types.BaseTuple)
        and len(idx.types) >= 2
        and isinstance(idx.types[-1], types.SliceType)
        and all(isinstance(t, types.Integer) for t in idx.types[:-1])
    ):
        return len(idx.types) - 1
    return None


@infer_global(operator.setitem)
class _LaneSetSlice(AbstractTemplate):
    """a[i, ..., lo:hi] = x (a float or Vec) on a LaneArray: every element of the sliced sub-array."""

    def generic(self, args, kws):
        if len(args) != 3:
            return None
        a, idx, v = args
        if not isinstance(a, LaneArrayType) or not isinstance(v, (VecType, types.Float, types.Integer)):
            return None
        k = _slice_index(idx)
        if k is None or k >= a.ndim:
            return None
        return signature(types.none, a, idx, v)


@lower_builtin(operator.setitem, LaneArrayType, types.SliceType, types.Any)
@lower_builtin(operator.setitem, LaneArrayType, types.BaseTuple, types.Any)
def _lane_setslice_impl(context, builder, sig, args):
    from numba.cpython import slicing

    lty, idxty, vty = sig.args
    if _slice_index(idxty) is None:  # an int tuple: the element store
        return _lane_setitem_impl(context, builder, sig, args)
    st = cgutils.create_struct_proxy(lty)(context, builder, value=args[0])
    shape = cgutils.unpack_tuple(builder, st.shape, lty.ndim)
    if isinstance(idxty, types.SliceType):
        ints, sl, slty = [], args[1], idxty
    else:
        k = len(idxty.types) - 1
        ints = [_intp(context, builder, builder.extract_value(args[1], j), idxty.types[j]) for j in range(k)]
        sl, slty = builder.extract_value(args[1], k), idxty.types[k]
    k = len(ints)
    off = ir.Constant(cgutils.intp_t, 0)
    for j, i in enumerate(ints):
        off = builder.add(builder.mul(off, shape[j]), i)
    inner = ir.Constant(cgutils.intp_t, LANES)  # doubles per element of the sliced axis
    for n in shape[k + 1 :]:
        inner = builder.mul(inner, n)
    base = builder.gep(st.data, [builder.mul(builder.mul(off, shape[k]), inner)])
    sli = context.make_helper(builder, slty, sl)
    slicing.guard_invalid_slice(context, builder, slty, sli)
    slicing.fix_slice(builder, sli, shape[k])
    count = slicing.get_slice_length(builder, sli)
    v = _as_vec(context, builder, vty, args[2])
    nvec = builder.sdiv(inner, ir.Constant(cgutils.intp_t, LANES))
    with cgutils.for_range(builder, count) as loop:
        row = builder.add(sli.start, builder.mul(loop.index, sli.step))
        p = builder.gep(base, [builder.mul(row, inner)])
        with cgutils.for_range(builder, nvec) as inner_loop:
            q = builder.gep(p, [builder.mul(inner_loop.index, ir.Constant(cgutils.intp_t, LANES))])
            builder.store(v, builder.bitcast(q, _VT.as_pointer()), align=8)
    return context.get_dummy_value()


@infer_global(len)
class _LaneLen(AbstractTemplate):
    def generic(self, args, kws):
        if len(args) == 1 and isinstance(args[0], LaneArrayType):
            return signature(types.intp, args[0])
        return None


@lower_builtin(len, LaneArrayType)
def _lane_len_impl(context, builder, sig, args):
    st = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0])
    return builder.extract_value(st.shape, 0)


@infer_getattr
class _LaneAttrs(AttributeTemplate):
    key = LaneArrayType

    def resolve_shape(self, ary):
        return types.UniTuple(types.intp, ary.ndim)


@lower_getattr(LaneArrayType, "shape")
def _lane_shape_impl(context, builder, typ, val):
    return cgutils.create_struct_proxy(typ)(context, builder, value=val).shape


@intrinsic
def lanes_of(typingctx, a):
    """The LaneArray of a C-contiguous float64 array whose last axis has LANES elements (its per-world shape is
    the other axes)."""
    if not (_row_array(a) and a.ndim >= 2):
        return None
    lty = LaneArrayType(a.ndim - 1)

    def codegen(context, builder, sig, args):
        arr = context.make_array(sig.args[0])(context, builder, args[0])
        shape = cgutils.unpack_tuple(builder, arr.shape, sig.args[0].ndim)
        return _lane_view(context, builder, lty, arr.data, shape[:-1])

    return lty(a), codegen


# ------------------------------------------------------------------------------------------------------------
# Lane-wise forms of the math a kernel uses: the scalar function's IEEE result in every lane.


@intrinsic
def where(typingctx, c, a, b):
    """a where c else b: per lane for a Mask (both sides already computed), `a if c else b` for a bool."""
    if isinstance(c, MaskType):

        def codegen(context, builder, sig, args):
            x, y = _operands(context, builder, signature(vec, *sig.args[1:]), args[1:])
            return builder.select(args[0], x, y)

        return vec(c, a, b), codegen
    if isinstance(c, types.Boolean):
        rt = typingctx.unify_pairs(a, b)
        if rt is None:
            return None

        def codegen(context, builder, sig, args):
            x = context.cast(builder, args[1], sig.args[1], sig.return_type)
            y = context.cast(builder, args[2], sig.args[2], sig.return_type)
            return builder.select(context.cast(builder, args[0], sig.args[0], types.boolean), x, y)

        return rt(c, a, b), codegen
    return None


@intrinsic
def any_true(typingctx, c):
    """True when c (a bool, or any lane of a Mask) is set."""
    if isinstance(c, MaskType):

        def codegen(context, builder, sig, args):
            bits = builder.bitcast(args[0], ir.IntType(LANES))
            return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(LANES), 0))

        return types.boolean(c), codegen
    if isinstance(c, types.Boolean):

        def codegen(context, builder, sig, args):
            return args[0]

        return types.boolean(c), codegen
    return None


@intrinsic
def all_true(typingctx, c):
    """True when c (a bool, or every lane of a Mask) is set."""
    if isinstance(c, MaskType):

        def codegen(context, builder, sig, args):
            bits = builder.bitcast(args[0], ir.IntType(LANES))
            return builder.icmp_unsigned("==", bits, ir.Constant(ir.IntType(LANES), (1 << LANES) - 1))

        return types.boolean(c), codegen
    if isinstance(c, types.Boolean):

        def codegen(context, builder, sig, args):
            return args[0]

        return types.boolean(c), codegen
    return None


@intrinsic
def lnot(typingctx, c):
    """not c: per lane for a Mask, `not c` for a bool (where `~` would be an int's bitwise not)."""
    if isinstance(c, MaskType):

        def codegen(context, builder, sig, args):
            return builder.not_(args[0])

        return mask(c), codegen
    if isinstance(c, types.Boolean):

        def codegen(context, builder, sig, args):
            return builder.not_(args[0])

        return types.boolean(c), codegen
    return None


@intrinsic
def lane_mask(typingctx, bits):
    """The Mask whose lane k is bit k of the int bits."""

    def codegen(context, builder, sig, args):
        b = context.cast(builder, args[0], sig.args[0], types.int64)
        v = builder.insert_element(
            ir.Constant(ir.VectorType(ir.IntType(64), LANES), ir.Undefined), b, ir.Constant(ir.IntType(32), 0)
        )
        v = builder.shuffle_vector(
            v, ir.Constant(ir.VectorType(ir.IntType(64), LANES), ir.Undefined), ir.Constant(_IT, [0] * LANES)
        )
        one = ir.Constant(ir.VectorType(ir.IntType(64), LANES), [1 << k for k in range(LANES)])
        return builder.icmp_unsigned(
            "!=", builder.and_(v, one), ir.Constant(ir.VectorType(ir.IntType(64), LANES), [0] * LANES)
        )

    return mask(bits), codegen


@intrinsic
def false_like(typingctx, x):
    """False with the shape of x: a bool for a float, int or bool, an all-false Mask for a Vec or Mask (the start
    of a mask built up with |)."""
    if isinstance(x, (VecType, MaskType)):
        return mask(x), lambda context, builder, sig, args: ir.Constant(_MT, [0] * LANES)
    if isinstance(x, (types.Number, types.Boolean)):
        return types.boolean(x), lambda context, builder, sig, args: ir.Constant(ir.IntType(1), 0)
    return None


@intrinsic
def lane_of(typingctx, x, k):
    """Lane k of a Vec or Mask, or x itself (a float, int or bool: the same in every lane)."""
    if isinstance(x, VecType):
        return types.float64(x, k), lambda context, builder, sig, args: builder.extract_element(args[0], args[1])
    if isinstance(x, MaskType):
        return types.boolean(x, k), lambda context, builder, sig, args: builder.extract_element(args[0], args[1])
    if isinstance(x, (types.Number, types.Boolean)):
        return x(x, k), lambda context, builder, sig, args: args[0]
    return None


def _lanewise(fn):
    """A Vec form of the scalar math function fn (libm lane by lane)."""

    @overload(fn, inline="never")
    def _ov(x):
        if isinstance(x, VecType):

            def impl(x):
                r = x
                for k in range(LANES):
                    r = with_lane(r, k, fn(lane(x, k)))
                return r

            return impl
        return None


for _fn in (math.sin, math.cos, math.exp, math.log, math.tanh, math.atan, math.acos, math.asin):
    _lanewise(_fn)


@overload(math.atan2)
def _atan2_vec(y, x):
    if isinstance(y, VecType) or isinstance(x, VecType):

        def impl(y, x):
            yy = splat(0.0) + y
            xx = splat(0.0) + x
            r = yy
            for k in range(LANES):
                r = with_lane(r, k, math.atan2(lane(yy, k), lane(xx, k)))
            return r

        return impl
    return None


@overload(math.sqrt)
def _sqrt_vec(x):
    if isinstance(x, VecType):
        return lambda x: vsqrt(x)
    return None


@overload(abs)
def _abs_vec(x):
    if isinstance(x, VecType):
        return lambda x: vabs(x)
    return None


@overload(min)
def _min_vec(a, b):
    # numba's min of two floats: b < a ? b : a (numba.cpython.builtins.do_minmax)
    if isinstance(a, VecType) or isinstance(b, VecType):
        return lambda a, b: select(b < a, b, a)
    return None


@overload(max)
def _max_vec(a, b):
    # numba's max of two floats: b > a ? b : a
    if isinstance(a, VecType) or isinstance(b, VecType):
        return lambda a, b: select(b > a, b, a)
    return None
