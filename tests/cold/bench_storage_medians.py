"""scripts/bench-storage's medians over rounds: one row per figure and build, the middle value
(the mean of the two middle ones for an even count), with the rounds' spread."""
import importlib.machinery
import importlib.util
import sys

loader = importlib.machinery.SourceFileLoader("bench_storage", sys.argv[1])
spec = importlib.util.spec_from_loader("bench_storage", loader)
bench_storage = importlib.util.module_from_spec(spec)
loader.exec_module(bench_storage)

rows = [
    ("cold", "64M / O_DIRECT", "before", 0.90, 1.0, "higher", ""),
    ("cold", "64M / O_DIRECT", "after", 1.20, 1.0, "higher", ""),
    ("cold", "64M CPU / O_DIRECT's", "after", 1.5, 2.0, "lower", ""),
    ("cold", "64M / O_DIRECT", "before", 0.70, 1.0, "higher", ""),
    ("cold", "64M / O_DIRECT", "after", 0.95, 1.0, "higher", ""),
    ("cold", "64M CPU / O_DIRECT's", "after", 2.5, 2.0, "lower", ""),
    ("cold", "64M / O_DIRECT", "before", 1.50, 1.0, "higher", ""),
    ("cold", "64M / O_DIRECT", "after", 1.00, 1.0, "higher", ""),
]
medians = {(m[1], m[2]): m for m in bench_storage.round_medians(rows)}
assert len(medians) == 3, medians
before = medians[("64M / O_DIRECT", "before")]
assert abs(before[3] - 0.90) < 1e-9, before  # odd count: the middle, not the mean (1.03)
assert before[4:6] == (1.0, "higher") and before[6] == "rounds 0.70-1.50", before
after = medians[("64M / O_DIRECT", "after")]
assert abs(after[3] - 1.00) < 1e-9 and after[6] == "rounds 0.95-1.20", after
cpu = medians[("64M CPU / O_DIRECT's", "after")]
assert abs(cpu[3] - 2.0) < 1e-9 and cpu[5] == "lower", cpu  # even count: the two middle ones
print("bench-storage medians: ok")
