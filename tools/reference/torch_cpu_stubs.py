"""Build abort-on-call stub .so files for the CUDA libraries that the PyPI torch
wheel links against, so that the CUDA wheel can be imported and used on CPU
without downloading the multi-GB nvidia-* wheels. Stubs go into torch/lib
($ORIGIN in torch's RPATH). libcuda.so.1 / libnvrtc are NOT stubbed, so torch.cuda.is_available() stays False.
Every stub symbol aborts if called (they are only reached on GPU code paths).
Needs gcc and binutils (objdump)."""
import subprocess, re, collections, os, sys, glob, tempfile
if len(sys.argv) != 2:
    raise SystemExit("usage: torch_cpu_stubs.py VENV/lib/python3.11/site-packages/torch/lib")
tl = sys.argv[1]
libs = ["libtorch.so","libtorch_cuda.so","libtorch_python.so","libtorch_cuda_linalg.so","libtorch_nvshmem.so","libc10_cuda.so"]
STUB = ["libcublas.so.13","libcublasLt.so.13","libcudnn.so.9","libcufft.so.12","libcufile.so.0","libcurand.so.10",
        "libcusolver.so.12","libcusparse.so.12","libcusparseLt.so.0","libnccl.so.2","libnvshmem_host.so.3"]
VERMAP = {"NVSHMEM": "libnvshmem_host.so.3"}
und = collections.defaultdict(set)
for l in libs:
    for line in subprocess.run(["objdump","-T",os.path.join(tl,l)],capture_output=True,text=True).stdout.splitlines():
        if "*UND*" in line and " w " not in line[:24]:  # weak refs must stay undefined
            parts=line.split(); und[parts[-2].strip("()")].add(parts[-1])
# symbols defined by libraries that exist
have=set()
cands = glob.glob(os.path.join(tl,"*.so*")) + glob.glob(os.path.join(tl,"../../nvidia/cu13/lib/*.so*"))
for n in ["libc.so.6","libm.so.6","libstdc++.so.6","libgcc_s.so.1","libpthread.so.0","libdl.so.2","librt.so.1","ld-linux-x86-64.so.2"]:
    for d in ["/lib/x86_64-linux-gnu","/usr/lib/x86_64-linux-gnu","/lib64"]:
        if os.path.exists(os.path.join(d,n)): cands.append(os.path.join(d,n)); break
cands += [os.path.realpath(sys.executable)] + glob.glob(os.path.join(sys.base_prefix,"lib","libpython3*.so*"))
for c in cands:
    if os.path.basename(c) in STUB: continue
    for line in subprocess.run(["objdump","-T",c],capture_output=True,text=True).stdout.splitlines():
        if "*UND*" not in line and len(line.split()) >= 6 and line[0] in "0123456789abcdef":
            have.add(line.split()[-1])
base_missing = {s for s in und.get("Base",set()) if s not in have and not s.startswith(("Py","_Py","__gmon_start__","_ITM_","__cxa_finalize"))}
print("unversioned missing:", len(base_missing))
tmp = tempfile.mkdtemp()
for lib in STUB:
    versions = {}
    if lib in und: versions[lib] = sorted(und[lib])
    for v,l2 in VERMAP.items():
        if l2 == lib and v in und: versions[v] = sorted(und[v])
    extra = sorted(base_missing) if lib == "libnccl.so.2" else []
    allsyms = [s for v in versions.values() for s in v] + extra
    asm = ['.text', '.globl __hfarm_stub_abort']
    asm.append('__hfarm_stub_abort:\n  call abort@PLT')
    for i,s in enumerate(allsyms):
        asm.append(f'.globl "{s}"\n.type "{s}",@function\n"{s}":\n  jmp __hfarm_stub_abort')
    S = os.path.join(tmp, lib+".s"); open(S,"w").write("\n".join(asm)+"\n")
    V = os.path.join(tmp, lib+".map")
    vs = ""
    for v,syms in versions.items():
        vs += v + " {\n global:\n" + "".join(f'  "{s}";\n' for s in syms) + "};\n"
    if not vs: vs = "{ global: *; };\n"
    open(V,"w").write(vs)
    if extra and versions:
        raise SystemExit("extra syms on versioned lib")
    subprocess.run(["gcc","-shared","-fPIC","-nostartfiles","-o",os.path.join(tl,lib),S,f"-Wl,-soname,{lib}",f"-Wl,--version-script,{V}"],check=True)
    print(lib, len(allsyms), list(versions))
