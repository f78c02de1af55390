"""PNG decoding for textures and height fields, as MuJoCo reads them (lodepng_decode to 8-bit grey, RGB or RGBA).

Every PNG colour type and bit depth (grey 1/2/4/8/16, RGB 8/16, palette 1/2/4/8, grey+alpha and RGBA 8/16),
Adam7 interlacing, tRNS transparency and the sRGB chunk; chunk CRCs are checked as lodepng does.  Conversion to
the requested 8-bit layout follows lodepng: 16-bit samples keep their high byte, low bit depths are scaled to
0..255, palette indices are looked up (alpha from tRNS), and grey output takes the red channel.
"""

import struct
import zlib

import numpy as np

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))


class PNGError(ValueError):
    pass


def _sub(cur, bpp):
    """Filter 1 (Sub) undone in place on bytearray cur."""
    for i in range(bpp, len(cur)):
        cur[i] = (cur[i] + cur[i - bpp]) & 255


def _average(cur, prev, bpp):
    """Filter 3 (Average) undone in place on bytearray cur (prev: the row above)."""
    for i in range(bpp):
        cur[i] = (cur[i] + (prev[i] >> 1)) & 255
    for i in range(bpp, len(cur)):
        cur[i] = (cur[i] + ((cur[i - bpp] + prev[i]) >> 1)) & 255


def _paeth(cur, prev, bpp):
    """Filter 4 (Paeth) undone in place on bytearray cur (prev: the row above): the predictor of the PNG
    specification, with |p - a| = |b - c|, |p - b| = |a - c| and |p - c| = |(b - c) + (a - c)|."""
    for i in range(bpp):
        cur[i] = (cur[i] + prev[i]) & 255
    for i in range(bpp, len(cur)):
        a = cur[i - bpp]
        b = prev[i]
        c = prev[i - bpp]
        pa = b - c
        pb = a - c
        pc = pa + pb
        if pa < 0:
            pa = -pa
        if pb < 0:
            pb = -pb
        if pc < 0:
            pc = -pc
        if pa <= pb and pa <= pc:
            cur[i] = (cur[i] + a) & 255
        elif pb <= pc:
            cur[i] = (cur[i] + b) & 255
        else:
            cur[i] = (cur[i] + c) & 255


def _unfilter(raw, width, height, bpp_bits):
    """Scanlines of one (sub)image with their filters undone: (height, bytes per row) uint8."""
    stride = (width * bpp_bits + 7) // 8
    bpp = max(1, bpp_bits // 8)
    if len(raw) < height * (stride + 1):
        raise PNGError("image data too short")
    out = np.zeros((height, stride), np.uint8)
    prev = bytearray(stride)
    pos = 0
    for r in range(height):
        ftype = raw[pos]
        cur = bytearray(raw[pos + 1 : pos + 1 + stride])
        pos += stride + 1
        if ftype == 1:
            _sub(cur, bpp)
        elif ftype == 2:
            cur = bytearray(((np.frombuffer(cur, np.uint8) + np.frombuffer(prev, np.uint8)) & 255).astype(np.uint8))
        elif ftype == 3:
            _average(cur, prev, bpp)
        elif ftype == 4:
            _paeth(cur, prev, bpp)
        elif ftype != 0:
            raise PNGError(f"invalid filter type {ftype}")
        out[r] = np.frombuffer(cur, np.uint8)
        prev = cur
    return out, pos


def _samples(rows, width, channels, depth):
    """(height, width, channels) integer samples of unfiltered scanlines."""
    h = rows.shape[0]
    if depth == 8:
        return rows[:, : width * channels].reshape(h, width, channels).astype(np.int64)
    if depth == 16:
        b = rows[:, : 2 * width * channels].astype(np.int64)
        return (b[:, 0::2] * 256 + b[:, 1::2]).reshape(h, width, channels)
    bits = np.unpackbits(rows, axis=1)[:, : width * depth].reshape(h, width, depth)
    weights = (1 << np.arange(depth - 1, -1, -1)).astype(np.int64)
    return (bits.astype(np.int64) @ weights).reshape(h, width, 1)


def decode(data):
    """(width, height, samples (h, w, channels) int, colour type, bit depth, palette (n, 4) or None,
    tRNS bytes or None, sRGB chunk present)."""
    if data[:8] != _SIGNATURE:
        raise PNGError("not a PNG file (bad signature)")
    pos, idat, ihdr, palette, trns, srgb = 8, [], None, None, None, False
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos : pos + 8])
        body = data[pos + 8 : pos + 8 + length]
        if len(body) != length or pos + 12 + length > len(data):
            raise PNGError("chunk extends past the end of the file")
        crc = struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise PNGError(f"CRC error in chunk {ctype.decode('latin-1')}")
        pos += 12 + length
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif ctype == b"tRNS":
            trns = body
        elif ctype == b"sRGB":
            srgb = True
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
    if ihdr is None:
        raise PNGError("missing IHDR chunk")
    width, height, depth, color, _, _, interlace = ihdr
    if color not in _CHANNELS or depth not in (1, 2, 4, 8, 16) or width == 0 or height == 0:
        raise PNGError("invalid image header")
    if color == 3 and palette is None:
        raise PNGError("palette image without PLTE chunk")
    try:
        raw = zlib.decompress(b"".join(idat))
    except zlib.error as e:
        raise PNGError(f"corrupt image data ({e})") from None
    ch = _CHANNELS[color]
    bpp_bits = ch * depth
    if not interlace:
        rows, _ = _unfilter(raw, width, height, bpp_bits)
        samples = _samples(rows, width, ch, depth)
    else:
        samples = np.zeros((height, width, ch), np.int64)
        pos = 0
        for x0, y0, dx, dy in _ADAM7:
            w = (width - x0 + dx - 1) // dx
            h = (height - y0 + dy - 1) // dy
            if w <= 0 or h <= 0:
                continue
            rows, used = _unfilter(raw[pos:], w, h, bpp_bits)
            pos += used
            samples[y0::dy, x0::dx] = _samples(rows, w, ch, depth)
    return width, height, samples, color, depth, palette, trns, srgb


def to_rgba8(samples, color, depth, palette, trns):
    """lodepng's getPixelColorRGBA8 over the whole image: (h, w, 4) uint8."""
    h, w = samples.shape[:2]
    out = np.zeros((h, w, 4), np.int64)
    out[..., 3] = 255
    high = (lambda v: v >> 8) if depth == 16 else (lambda v: v)
    if color == 0:
        v = samples[..., 0]
        g = high(v) if depth >= 8 else v * 255 // ((1 << depth) - 1)
        out[..., 0] = out[..., 1] = out[..., 2] = g
        if trns is not None and len(trns) >= 2:
            out[..., 3] = np.where(v == struct.unpack(">H", trns[:2])[0], 0, 255)
    elif color == 2:
        out[..., :3] = high(samples)
        if trns is not None and len(trns) >= 6:
            key = struct.unpack(">HHH", trns[:6])
            match = (samples[..., 0] == key[0]) & (samples[..., 1] == key[1]) & (samples[..., 2] == key[2])
            out[..., 3] = np.where(match, 0, 255)
    elif color == 3:
        idx = samples[..., 0]
        pal = np.zeros((256, 4), np.int64)
        pal[:, 3] = 255
        pal[: len(palette), :3] = palette
        if trns is not None:
            alpha = np.frombuffer(trns, np.uint8)[:256]
            pal[: len(alpha), 3] = alpha
        pal[len(palette) :] = (0, 0, 0, 255)  # out-of-range indices read as opaque black
        out = pal[idx]
    elif color == 4:
        g = high(samples[..., 0])
        out[..., 0] = out[..., 1] = out[..., 2] = g
        out[..., 3] = high(samples[..., 1])
    else:
        out = high(samples)
    return out.astype(np.uint8)


def read_png(data, nchannel):
    """(width, height, pixels flat uint8 with `nchannel` (1 grey, 3 RGB, 4 RGBA) per pixel, row-major from the
    top row, is_srgb) of PNG bytes."""
    width, height, samples, color, depth, palette, trns, srgb = decode(bytes(data))
    rgba = to_rgba8(samples, color, depth, palette, trns)
    if nchannel == 4:
        pix = rgba
    elif nchannel == 3:
        pix = rgba[..., :3]
    elif nchannel == 1:
        pix = rgba[..., :1]  # lodepng's grey output takes the red channel
    else:
        raise PNGError(f"unsupported number of channels: {nchannel}")
    return width, height, np.ascontiguousarray(pix).reshape(-1), srgb
