"""Struct types and intrinsics for numjoco's structrefs (Model, Data, task: hundreds of array fields each).

- short_struct_type: short type names and named LLVM payload types (numba names a StructRef type after its whole
  field list and gives its payload a literal LLVM struct type, so every mangled symbol taking a Model and every
  instruction touching the payload spelled out ~80 kB of text).
- struct_at / struct_at_address / struct_addr / struct_address: structs passed by the address of their meminfo
  (entries called from Python; a batch entry's per-world Model structs).
- struct_alloc / struct_new: a struct built from Python around existing arrays, without a jitted constructor.
"""

import hashlib as _hashlib

from llvmlite import ir as _llir
from numba.core import cgutils as _cgutils, types
from numba.core.datamodel import models as _models, register_default as _register_default
from numba.core.extending import intrinsic as _intrinsic

# ------------------------------------------------------------------------------------------------------------
# Short names and named LLVM types for the big structrefs (Model, Data: hundreds of array fields).  numba names
# a StructRef type after its whole field list and gives its payload a literal LLVM struct type, so every
# mangled symbol taking a Model and every instruction touching the payload spelled out ~80 kB of text.


class _ShortPayload(types.StructRefPayload):
    """StructRefPayload with a short name (a digest of the field list)."""

    def __init__(self, typename, fields, short):
        # StructRefPayload.__init__ without its long name (the repr of every field type, ~80 kB for Data)
        self._typename = typename
        self._fields = tuple(fields)
        types.Type.__init__(self, name=short + ".payload")


_PAYLOADS = {}  # struct type -> its payload type (kept out of the type's pickled state)


def short_struct_type(cls):
    """Class decorator for a StructRef subclass: type name numjoco.<Class>_<digest>, payload likewise."""
    orig_init = cls.__init__

    def __init__(self, fields):
        orig_init(self, fields)
        digest = _hashlib.sha1(repr(self._fields).encode()).hexdigest()[:16]
        self.name = "numjoco.%s_%s" % (cls.__name__, digest)

    def get_data_type(self):
        # the interned payload type, built once per struct type (numba asks at every field access it lowers)
        payload = _PAYLOADS.get(self)
        if payload is None:
            payload = _PAYLOADS[self] = _ShortPayload(self.__class__.__name__, self._fields, self.name)
        return payload

    cls.__init__ = __init__
    cls.get_data_type = get_data_type
    return cls


@_register_default(_ShortPayload)
class _NamedPayloadModel(_models.StructModel):
    """Payload model whose LLVM type is an identified struct (%"<name>"), printed once per module."""

    def __init__(self, dmm, fe_typ):
        super().__init__(dmm, fe_typ, tuple(fe_typ.field_dict.items()))

    def _named(self, kind, body):
        ty = _llir.global_context.get_identified_type("%s.%s" % (self.fe_type.name, kind))
        if ty.is_opaque:
            ty.set_body(*body.elements)
        return ty

    def get_value_type(self):
        if self._value_type is None:
            self._value_type = self._named("v", super().get_value_type())
        return self._value_type

    def get_data_type(self):
        if self._data_type is None:
            self._data_type = self._named("d", super().get_data_type())
        return self._data_type


# ------------------------------------------------------------------------------------------------------------
# Structs by address: a batch entry takes one Model struct per world (per-world model fields for domain
# randomisation share every other array) as an int64 array of meminfo addresses; the Python side keeps the
# structs alive for the call.


def _struct_from_address(context, builder, struct_type, ptr):
    """Code for the struct of struct_type whose meminfo is at address ptr (an int64 value): a new reference."""
    st = _cgutils.create_struct_proxy(struct_type)(context, builder)
    st.meminfo = builder.inttoptr(ptr, st.meminfo.type)
    val = st._getvalue()
    context.nrt.incref(builder, struct_type, val)
    return val


@_intrinsic
def struct_at(typingctx, ptr, like):
    """The struct of `like`'s type whose meminfo is at address `ptr` (a new reference)."""

    def codegen(context, builder, sig, args):
        return _struct_from_address(context, builder, like, args[0])

    return like(ptr, like), codegen


def struct_at_address(struct_type):
    """An intrinsic f(ptr) -> the struct of struct_type whose meminfo is at address ptr (a new reference): for
    entries called from Python with addresses (`struct_addr`), an int unboxing in ~10 ns where a struct takes ~60
    (numba's StructRef unboxing reads the proxy's meminfo through Python)."""

    @_intrinsic
    def at(typingctx, ptr):
        def codegen(context, builder, sig, args):
            return _struct_from_address(context, builder, struct_type, args[0])

        return struct_type(types.int64), codegen

    return at


def struct_addr(st):
    """The meminfo address of a struct's Python proxy (what struct_address gives in jitted code), read from
    numba's MemInfo object (a PyObject header, then the NRT_MemInfo pointer) and remembered on the proxy.  The
    caller keeps the proxy alive while jitted code uses the address."""
    a = st.__dict__.get("_addr")
    if a is None:
        import ctypes

        a = st.__dict__["_addr"] = ctypes.c_void_p.from_address(id(st._meminfo) + object.__basicsize__).value
    return a


@_intrinsic
def struct_address(typingctx, st):
    """The meminfo address of a struct (int64)."""

    def codegen(context, builder, sig, args):
        s = _cgutils.create_struct_proxy(st)(context, builder, value=args[0])
        return builder.ptrtoint(s.meminfo, _cgutils.intp_t)

    return types.intp(st), codegen


@_intrinsic
def struct_alloc(typingctx, struct_type):
    """A new struct of struct_type (a StructRef type reference) with every field zero / null; the fields are set
    from Python by `struct_new`.  Its destructor releases the arrays the fields hold."""
    from numba.experimental.jitclass.base import imp_dtor

    inst_type = struct_type.instance_type

    def codegen(context, builder, sig, args):
        model = context.data_model_manager[inst_type.get_data_type()]
        alloc_type = model.get_value_type()
        meminfo = context.nrt.meminfo_alloc_dtor(
            builder,
            context.get_constant(types.uintp, context.get_abi_sizeof(alloc_type)),
            imp_dtor(context, builder.module, inst_type),
        )
        data_pointer = builder.bitcast(context.nrt.meminfo_data(builder, meminfo), alloc_type.as_pointer())
        builder.store(_cgutils.get_null_value(alloc_type), data_pointer)
        inst = context.make_helper(builder, inst_type)
        inst.meminfo = meminfo
        return inst._getvalue()

    return inst_type(struct_type), codegen


_LAYOUTS = {}
_ABI = {}  # field type -> (ABI size, ABI alignment)


def _struct_layout(inst_type):
    """[(name, numba type, numpy dtype or None, byte offset)] of the fields of a struct's data block (the C
    layout of numba's LLVM struct: each field at the next multiple of its ABI alignment)."""
    lay = _LAYOUTS.get(inst_type)
    if lay is None:
        from numba.core.registry import cpu_target
        from numba.np.numpy_support import as_dtype

        ctx = cpu_target.target_context
        lay, off = [], 0
        for name, ftype in inst_type._fields:
            if not (isinstance(ftype, types.Array) and ftype.layout == "C" and ftype.mutable) and ftype != types.int64:
                raise TypeError("struct_new: field %s of type %s (only int64 and C arrays)" % (name, ftype))
            sa = _ABI.get(ftype)
            if sa is None:  # llvmlite answers by parsing the type's IR: ~0.2 ms a field, ~0.1 s a warm start
                lt = ctx.get_value_type(ftype)
                sa = _ABI[ftype] = (ctx.get_abi_sizeof(lt), ctx.get_abi_alignment(lt))
            size, align = sa
            off = (off + align - 1) // align * align
            lay.append((name, ftype, as_dtype(ftype.dtype) if isinstance(ftype, types.Array) else None, off))
            off += size
        total = ctx.get_abi_sizeof(ctx.data_model_manager[inst_type.get_data_type()].get_value_type())
        if not off <= total < off + 8:
            raise RuntimeError("struct_new: unexpected layout of %s" % inst_type)
        _LAYOUTS[inst_type] = lay
    return lay


_ADAPT_NDARRAY = []


def struct_new(alloc, struct_type, values):
    """A struct of struct_type with its fields set from `values` (in field order; int64 scalars as ints, arrays
    C-contiguous, writeable, of the field's dtype and rank), built from Python: `alloc(struct_type)` (a jitted
    function returning struct_alloc(struct_type)) makes the empty struct, then each array field is filled as
    numba's argument unboxing fills it (NRT_adapt_ndarray_from_python: a reference to the array held by the
    struct) and each scalar written in place.  A jitted constructor taking the values as one tuple cost 5 s of
    compile per struct type (its wrapper unboxes ~250 arrays); this costs one small jitted allocator."""
    import ctypes
    import numpy as np

    if not _ADAPT_NDARRAY:
        from numba.core.runtime import _nrt_python

        _ADAPT_NDARRAY.append(
            ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_void_p)(
                _nrt_python.c_helpers["adapt_ndarray_from_python"]
            )
        )
    adapt = _ADAPT_NDARRAY[0]
    lay = _struct_layout(struct_type)
    if len(values) != len(lay):
        raise TypeError("struct_new: %d values for the %d fields of %s" % (len(values), len(lay), struct_type))
    for (name, ftype, dtype, _), v in zip(lay, values):
        if dtype is not None and not (
            isinstance(v, np.ndarray)
            and v.dtype == dtype
            and v.ndim == ftype.ndim
            and v.flags.c_contiguous
            and v.flags.writeable
            and v.flags.aligned
        ):
            raise TypeError("struct_new: field %s is %s, got %r" % (name, ftype, getattr(v, "dtype", type(v))))
    st = alloc(struct_type)
    base = st._meminfo.data
    for (name, ftype, dtype, off), v in zip(lay, values):
        if dtype is None:
            ctypes.c_int64.from_address(base + off).value = int(v)
        elif adapt(v, base + off) != 0:
            raise TypeError("struct_new: field %s: not an array numba can hold" % name)
    return st
