# hipfile_provider_variants(<out-var>)
#
# The HIP runtimes a program written against the HIP API can be linked with on this build, one
# entry per runtime as "<runtime>|<target suffix>|<library>": "host||hip-host" always,
# "cuda|-cuda|hip-cuda" when the CUDA provider is built, and "hip|-hip|<libamdhip64>" when AMD's
# runtime is found. Examples and tools build one program per entry, so the same source runs on the
# CPU, an NVIDIA GPU and an AMD GPU, each sharing its runtime instance with the library.
find_library(HF_AMDHIP64_LIBRARY amdhip64 DOC "AMD's HIP runtime, for the <program>-hip builds")

function(hipfile_provider_variants out)
  set(_variants "host||hip-host")
  if(TARGET hip-cuda)
    list(APPEND _variants "cuda|-cuda|hip-cuda")
  endif()
  if(HF_AMDHIP64_LIBRARY)
    list(APPEND _variants "hip|-hip|${HF_AMDHIP64_LIBRARY}")
  endif()
  set(${out} ${_variants} PARENT_SCOPE)
endfunction()

# hipfile_provider_variant_split(<entry> <runtime-var> <suffix-var> <library-var>)
macro(hipfile_provider_variant_split entry runtime_var suffix_var library_var)
  string(REPLACE "|" ";" _hf_variant_parts "${entry}")
  list(GET _hf_variant_parts 0 ${runtime_var})
  list(GET _hf_variant_parts 1 ${suffix_var})
  list(GET _hf_variant_parts 2 ${library_var})
endmacro()
