#!/usr/bin/env bash
# On an NVIDIA machine with the CUDA toolkit: builds hipfile with the cuFile compatibility library,
# then runs two unmodified cuFile programs on NVIDIA's libcufile and on ours, and prints each
# outcome and throughput:
#   1. cufile_roundtrip_nvidia: C, NVIDIA's cufile.h, cudaMalloc, linked with -lcufile;
#   2. torch_gds_roundtrip.py: torch.cuda.gds.GdsFile save and load of a tensor.
# Exit 0 when both programs round-trip their data on hipfile's library.
#
# Knobs: HIPFILE_BUILD_DIR (default build/), HF_COMPAT_DIR (scratch files, default the build dir),
# HF_COMPAT_MIB (data size, default 1024), PYTHON (default python3).
set -uo pipefail
# shellcheck source=SCRIPTDIR/../../scripts/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib/common.sh"

hf_build || exit 1
ours=$HF_BUILD_DIR/lib/hipfile/cufile
program=$HF_BUILD_DIR/bin/cufile_roundtrip_nvidia
scratch=${HF_COMPAT_DIR:-$HF_BUILD_DIR}
mib=${HF_COMPAT_MIB:-1024}
python=${PYTHON:-python3}
export HIPFILE_CONFIG=$HF_BUILD_DIR/hipfile.conf

[[ -x $program ]] || hf_die "$program was not built: CMake found no cufile.h, libcufile and cudart_static under CUDA_HOME or /usr/local/cuda"
nvidia_lib=$(sed -n 's/^HF_NVIDIA_CUFILE_LIBRARY:FILEPATH=//p' "$HF_BUILD_DIR/CMakeCache.txt")
nvidia_dir=$(dirname "$(readlink -f "$nvidia_lib")")

hf_say "GPU: $(nvidia-smi -L 2>/dev/null | head -n 1)"
hf_say "NVIDIA's libcufile: $(readlink -f "$nvidia_lib")"
hf_say "  its cuFile symbol versions: $(readelf --dyn-syms -W "$nvidia_lib" | grep -o 'cuFile[A-Za-z0-9_]*@@*[A-Za-z0-9_.]*' | sed 's/.*@//' | sort -u | tr '\n' ' ')"
hf_say "hipfile's libcufile: $ours/libcufile.so.0"
hf_say "  nvidia-fs loaded: $(if [[ -e /proc/driver/nvidia-fs/version ]]; then cat /proc/driver/nvidia-fs/version; else echo no; fi)"

status=0
hf_say "1a. C program on NVIDIA's libcufile ($nvidia_dir)"
LD_LIBRARY_PATH=$nvidia_dir "$program" "$scratch/cufile_roundtrip.nvidia.bin" "$mib"
hf_say "    exit status $?"
hf_say "1b. the same binary on hipfile's libcufile"
LD_LIBRARY_PATH=$ours "$program" "$scratch/cufile_roundtrip.hipfile.bin" "$mib"
rc=$?
hf_say "    exit status $rc"
((rc == 0)) || status=1

torch_test=$(dirname "${BASH_SOURCE[0]}")/torch_gds_roundtrip.py
if "$python" -c 'import torch.cuda.gds' 2>/dev/null; then
    hf_say "2a. torch.cuda.gds on the libcufile torch finds itself"
    "$python" "$torch_test" "$scratch/torch_gds.nvidia.bin" "$mib"
    hf_say "    exit status $?"
    hf_say "2b. torch.cuda.gds with hipfile's libcufile first on LD_LIBRARY_PATH"
    out=$(LD_LIBRARY_PATH=$ours${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$python" "$torch_test" "$scratch/torch_gds.hipfile.bin" "$mib")
    rc=$?
    echo "$out"
    if [[ $out != *"libcufile: $ours"* ]]; then
        # A run path (DT_RPATH) in torch's libraries outranks LD_LIBRARY_PATH; a library
        # already loaded under the soname is reused whatever the search path says.
        hf_say "2c. torch loaded another libcufile; again with LD_PRELOAD"
        LD_PRELOAD=$ours/libcufile.so.0 "$python" "$torch_test" "$scratch/torch_gds.hipfile.bin" "$mib"
        rc=$?
    fi
    hf_say "    exit status $rc"
    ((rc == 0)) || status=1
else
    hf_say "2. skipped: $python cannot import torch.cuda.gds"
    status=1
fi
rm -f "$scratch"/cufile_roundtrip.*.bin "$scratch"/torch_gds.*.bin
exit $status
