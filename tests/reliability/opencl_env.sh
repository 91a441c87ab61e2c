# opencl_env.sh: sourced by sanitize.sh and tsan.sh (and tested by icd_pin.sh). Pins the OpenCL
# ICD loader to PoCL's ICD. Other ICDs can be installed beside it (Intel's, for ocloc), and
# Intel's loads a library with RTLD_DEEPBIND, which AddressSanitizer and ThreadSanitizer refuse:
# they abort every OpenCL program at its first clGetPlatformIDs. A value the caller set is kept.
# OPENCL_VENDOR_PATH (ocl-icd's own variable) names another vendors folder, as for ocl-icd.
if [ -z "${OCL_ICD_VENDORS:-}" ]; then
    for icd in "${OPENCL_VENDOR_PATH:-/etc/OpenCL/vendors}"/pocl*.icd; do
        if [ -f "$icd" ]; then
            OCL_ICD_VENDORS=$icd
            export OCL_ICD_VENDORS
            break
        fi
    done
    [ -n "${OCL_ICD_VENDORS:-}" ] || echo "opencl_env.sh: no PoCL ICD found; OpenCL left as is" >&2
fi
