# Part of the Sinter project.
"""Compares the code of two artifacts' cubins, and says which ptxas
command line each recorded:

  cubin_code.py <artifact dir A> <artifact dir B>

Both define the same symbols; their code (the .text sections), constant
banks and shared-memory sections are the same bytes; the kernels'
attributes in `.nv.info` (registers, frame sizes, ...) are the same once
their symbol indices are read as names; and the other sections that
differ are among those that hold symbol indices or the order of symbols
(the symbol and string tables, relocations, the call graph, per-kernel
info) or ptxas' command line (`.note.nv.tkinfo`). Prints `same code: <N>
sections, <K> symbols, <A> kernel attributes`, then per artifact `<dir
name>: ptxas <the recorded options>`.
"""
import json
import os
import struct
import sys

# Sections that must be the same bytes, by name prefix.
SAME = (".text.", ".nv.constant", ".nv.shared.")
# Sections that may differ: what holds symbol indices or their order, and
# the note that records ptxas' command line.
INDEXED = (".symtab", ".strtab", ".rela", ".nv.callgraph", ".nv.info",
           ".note.nv.tkinfo")
SHT_SYMTAB = 2
SHT_NOBITS = 8
# .nv.info entries: a format byte (EIFMT_SVAL: a 2-byte size and a payload;
# EIFMT_HVAL: a 2-byte value; else none), then an attribute byte.
EIFMT_HVAL, EIFMT_SVAL = 3, 4


def cstr(data, offset):
    return data[offset:data.index(b"\0", offset)].decode()


def sections(path):
    with open(os.path.join(path, json.load(open(
            os.path.join(path, "manifest.json")))["cubin"]), "rb") as f:
        data = f.read()
    shoff = struct.unpack_from("<Q", data, 40)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
               for i in range(shnum)]
    names = headers[shstrndx][4]
    out, symbols = {}, []
    for h in headers:
        name = cstr(data, names + h[0])
        out[name] = b"" if h[1] == SHT_NOBITS else data[h[4]:h[4] + h[5]]
        if h[1] == SHT_SYMTAB:
            strtab = headers[h[6]][4]
            for i in range(h[5] // 24):
                symbols.append(cstr(data, strtab + struct.unpack_from(
                    "<I", data, h[4] + i * 24)[0]))
    return out, symbols


def kernel_attributes(info, symbols):
    """The global .nv.info's (attribute, symbol name, value) entries: each
    payload of 8 bytes is a symbol index and a value."""
    out, i = set(), 0
    while i < len(info):
        fmt, attr = info[i], info[i + 1]
        if fmt == EIFMT_SVAL:
            size = struct.unpack_from("<H", info, i + 2)[0]
            payload = info[i + 4:i + 4 + size]
            i += 4 + size
            if size == 8:
                index, value = struct.unpack("<II", payload)
                out.add((attr, symbols[index], value))
            else:
                out.add((attr, payload))
        elif fmt == EIFMT_HVAL:
            out.add((attr, info[i + 2:i + 4]))
            i += 4
        else:
            out.add((attr,))
            i += 2
    return out


def ptxas_options(note):
    """The ptxas options the tkinfo note recorded (its string with -arch)."""
    text = [s for s in note.split(b"\0") if b"-arch" in s]
    return text[0].decode().strip() if text else "(none recorded)"


def main(a, b):
    (sa, ya), (sb, yb) = sections(a), sections(b)
    assert set(sa) == set(sb), set(sa) ^ set(sb)
    assert sorted(ya) == sorted(yb), set(ya) ^ set(yb)
    same = [n for n in sa if n.startswith(SAME)]
    assert same and all(sa[n] == sb[n] for n in same), [
        n for n in same if sa[n] != sb[n]]
    differ = [n for n in sa if sa[n] != sb[n]]
    assert all(n.startswith(INDEXED) for n in differ), differ
    attrs = kernel_attributes(sa[".nv.info"], ya)
    assert attrs == kernel_attributes(sb[".nv.info"], yb)
    print("same code: %d sections, %d symbols, %d kernel attributes"
          % (len(sa), len(set(ya)), len(attrs)))
    for path, s in ((a, sa), (b, sb)):
        print("%s: ptxas %s" % (os.path.basename(path),
                                ptxas_options(s[".note.nv.tkinfo"])))


if __name__ == "__main__":
    main(*sys.argv[1:3])
