# Part of the Sinter project.
"""Checks a CUDA artifact's kernels.cubin beyond its existence:

  check_cubin.py <artifact dir> <chip>     (chip: sm_90a, sm_80, ...)

the files match SHA256SUMS, the cubin is a CUDA ELF (EM_CUDA) for the
chip's SM version, and its kernels are exactly the manifest's entry points,
every launched kernel among them. Prints `cubin ok: sm_<N>, <K> kernels`.
"""
import hashlib
import json
import os
import struct
import sys

EM_CUDA = 190
STT_FUNC = 2
SHT_SYMTAB = 2
SHN_UNDEF = 0


def cstr(data, offset):
    return data[offset:data.index(b"\0", offset)].decode()


def kernels(cubin):
    """The function symbols the cubin defines, but the compiler's helpers
    (undefined ones, like __assertfail of a kernel's assert, are the
    driver's)."""
    shoff = struct.unpack_from("<Q", cubin, 40)[0]
    shentsize, shnum = struct.unpack_from("<HH", cubin, 58)
    sections = [struct.unpack_from("<IIQQQQIIQQ", cubin, shoff + i * shentsize)
                for i in range(shnum)]
    names = set()
    for sec in sections:
        if sec[1] != SHT_SYMTAB:
            continue
        strtab = sections[sec[6]][4]
        for i in range(sec[5] // 24):
            name, info, _, shndx = struct.unpack_from(
                "<IBBH", cubin, sec[4] + i * 24)
            symbol = cstr(cubin, strtab + name)
            if (info & 0xF == STT_FUNC and shndx != SHN_UNDEF
                    and not symbol.startswith("$")):
                names.add(symbol)
    return names


def main(directory, chip):
    with open(os.path.join(directory, "SHA256SUMS")) as f:
        for line in f:
            digest, name = line.split()
            with open(os.path.join(directory, name), "rb") as g:
                assert hashlib.sha256(g.read()).hexdigest() == digest, name
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    with open(os.path.join(directory, manifest["cubin"]), "rb") as f:
        cubin = f.read()
    assert cubin[:4] == b"\x7fELF", "not an ELF file"
    assert struct.unpack_from("<H", cubin, 18)[0] == EM_CUDA, "not EM_CUDA"
    sm = (struct.unpack_from("<I", cubin, 48)[0] >> 8) & 0xFF
    want = int("".join(c for c in chip[3:] if c.isdigit()))
    assert sm == want, "cubin for sm_%d, expected %s" % (sm, chip)
    defined = kernels(cubin)
    entries = set(manifest["entry_points"])
    assert defined == entries, (sorted(defined), sorted(entries))
    for function in manifest["functions"]:
        for launch in function["launches"]:
            kernel = launch.get("kernel") or launch["fallback"]["kernel"]
            assert kernel in defined, kernel
    print("cubin ok: sm_%d, %d kernels" % (sm, len(defined)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
