"""Builds a small big-endian EXIF (TIFF) block for the media fixtures: Make/Model,
Orientation, DateTimeOriginal + OffsetTimeOriginal, GPS, UserComment and an Apple MakerNote
carrying a ContentIdentifier (tag 0x0011), laid out as iPhones write it. Used by
Scripts/make-media-fixtures and Scripts/make-demo-roll."""
import struct

ASCII, SHORT, LONG, RATIONAL, UNDEFINED, BYTE = 2, 3, 4, 5, 7, 1


def _value(kind, value):
    if kind == ASCII:
        data = value.encode() + b"\0"
        return data, len(data)
    if kind == SHORT:
        return struct.pack(">H", value), 1
    if kind == LONG:
        return struct.pack(">I", value), 1
    if kind == BYTE:
        return bytes(value), len(value)
    if kind == RATIONAL:
        return b"".join(struct.pack(">II", n, d) for n, d in value), len(value)
    if kind == UNDEFINED:
        return bytes(value), len(value)
    raise ValueError(kind)


def _ifd(entries, start, base=0):
    """An IFD at offset `start` (relative to `base`'s origin) and its out-of-line data."""
    entries = sorted(entries, key=lambda e: e[0])
    head = struct.pack(">H", len(entries))
    data_at = start + 2 + 12 * len(entries) + 4
    extra = b""
    for tag, kind, value in entries:
        raw, count = _value(kind, value)
        if len(raw) <= 4:
            head += struct.pack(">HHI", tag, kind, count) + raw.ljust(4, b"\0")
        else:
            head += struct.pack(">HHII", tag, kind, count, data_at + len(extra))
            extra += raw + (b"\0" if len(raw) % 2 else b"")
    return head + struct.pack(">I", 0) + extra


def apple_maker_note(content_identifier):
    """'Apple iOS\\0', version 1, 'MM', then an IFD whose offsets count from the note's start."""
    prefix = b"Apple iOS\0" + b"\0\x01" + b"MM"
    ifd = _ifd([(0x0001, LONG, 14), (0x0011, ASCII, content_identifier)], len(prefix))
    return prefix + ifd


def dms(degrees):
    d = int(degrees)
    m = int((degrees - d) * 60)
    s = round(((degrees - d) * 60 - m) * 60 * 100)
    return [(d, 1), (m, 1), (s, 100)]


def build(orientation=None, make=None, model=None, date=None, offset=None, gps=None,
          user_comment=None, content_identifier=None):
    """The TIFF block ("MM\\0*" first). gps = (lat, lon, altitude_m)."""
    exif_entries = []
    if date:
        exif_entries.append((0x9003, ASCII, date))
    if offset:
        exif_entries.append((0x9011, ASCII, offset))
    if user_comment:
        exif_entries.append((0x9286, UNDEFINED, b"ASCII\0\0\0" + user_comment.encode()))
    if content_identifier:
        exif_entries.append((0x927C, UNDEFINED, apple_maker_note(content_identifier)))
    gps_entries = []
    if gps:
        lat, lon, alt = gps
        gps_entries = [
            (0x0000, BYTE, [2, 3, 0, 0]),
            (0x0001, ASCII, "N" if lat >= 0 else "S"), (0x0002, RATIONAL, dms(abs(lat))),
            (0x0003, ASCII, "E" if lon >= 0 else "W"), (0x0004, RATIONAL, dms(abs(lon))),
            (0x0005, BYTE, [0 if alt >= 0 else 1]), (0x0006, RATIONAL, [(int(abs(alt) * 10), 10)]),
        ]
    ifd0 = []
    if make:
        ifd0.append((0x010F, ASCII, make))
    if model:
        ifd0.append((0x0110, ASCII, model))
    if orientation:
        ifd0.append((0x0112, SHORT, orientation))
    # Lay out: header, IFD0, Exif IFD, GPS IFD (pointers patched once sizes are known).
    pointer_tags = []
    if exif_entries:
        pointer_tags.append(0x8769)
    if gps_entries:
        pointer_tags.append(0x8825)
    placeholder = ifd0 + [(tag, LONG, 0) for tag in pointer_tags]
    ifd0_size = len(_ifd(placeholder, 8))
    exif_at = 8 + ifd0_size
    exif_block = _ifd(exif_entries, exif_at) if exif_entries else b""
    gps_at = exif_at + len(exif_block)
    gps_block = _ifd(gps_entries, gps_at) if gps_entries else b""
    pointers = []
    if exif_entries:
        pointers.append((0x8769, LONG, exif_at))
    if gps_entries:
        pointers.append((0x8825, LONG, gps_at))
    ifd0_block = _ifd(ifd0 + pointers, 8)
    assert len(ifd0_block) == ifd0_size
    return b"MM\0*" + struct.pack(">I", 8) + ifd0_block + exif_block + gps_block
