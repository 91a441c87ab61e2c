# nvidia-opencl.sh: source this on an NVIDIA machine whose driver ships its OpenCL library
# (libnvidia-opencl.so.1) but no ICD file (containers often do), so that the ICD loader finds
# the NVIDIA platform and not only PoCL: it registers the driver in a private vendors folder.
_nv_lib=""
for _d in /usr/local/nvidia/lib64 /usr/lib/x86_64-linux-gnu /usr/lib64; do
  if [ -e "$_d/libnvidia-opencl.so.1" ]; then _nv_lib="$_d/libnvidia-opencl.so.1"; break; fi
done
if [ -z "$_nv_lib" ]; then
  echo "nvidia-opencl.sh: no libnvidia-opencl.so.1 found" >&2
else
  mkdir -p /tmp/opencl-vendors
  echo "$_nv_lib" > /tmp/opencl-vendors/nvidia.icd
  export OCL_ICD_VENDORS=/tmp/opencl-vendors
fi
unset _nv_lib _d
