"""find_jansson.py: prints the path of the libjansson.so.4 the dynamic loader uses (the one the C
library links), for meson.build to bundle into the wheel."""
import os
import subprocess
import sys

listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
for line in listing.splitlines():
    name, _, path = line.strip().partition(" => ")
    if name.startswith("libjansson.so.4 ") and os.path.exists(path):
        print(os.path.realpath(path))
        sys.exit(0)
sys.exit("find_jansson.py: libjansson.so.4 not found (Debian: apt-get install libjansson4)")
