"""kernel_cache.py: reads the library's disk cache of built kernels (CLGEMM_CACHE_DIR), for the
tools that look at what the OpenCL driver made of a kernel (ptx_launch.py, ptxas_report.py).
A file is "CLGEMMB1", then the key's and the binary's lengths and a third field (three
little-endian 64-bit words), the key (the build options among it), and the binary (PTX text on
NVIDIA)."""
import glob
import re
import struct


def cached_kernels(d, families=("wgmma", "mma")):
    """(file, key, binary, entry name) of each cached kernel of these families."""
    entry = re.compile(rb"\.entry (clgemm_(?:%s))\b" % "|".join(families).encode())
    for f in sorted(glob.glob(d + "/*.bin")):
        b = open(f, "rb").read()
        if b[:8] != b"CLGEMMB1":
            continue
        kl, bl, _ = struct.unpack("<QQQ", b[8:32])
        key = b[32 : 32 + kl].decode("latin1")
        binary = b[32 + kl : 32 + kl + bl]
        m = entry.search(binary)
        if m:
            yield f, key, binary, m.group(1).decode()
