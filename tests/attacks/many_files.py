# Twenty thousand small files (2 MiB in all) in a subfolder of the working folder.
import os
os.makedirs("many", exist_ok=True)
for _i in range(20000):
    with open(os.path.join("many", f"{_i:05d}.txt"), "w") as _f:
        _f.write("x" * 100)
