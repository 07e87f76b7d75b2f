"""from_pretrained inside hipfile.safetensors.route(device=...) on a real GPU, against the stock
load of the same directory, every parameter and buffer compared bit for bit.

Checks the bulk door (a save_pretrained directory of several shards, a model with tied
embeddings, a dtype cast, an unexpected and a missing tensor reported as transformers reports
them), the loads that must keep transformers' own loader (device_map="auto", a state_dict
passed in, a model on the CPU), a shard cut short (SafetensorError naming the shard, no device
memory left), and that after the block stock loads read as they did before.

Run by ctest as gpu.python.transformers_door (exit 77, skipped, without PyTorch on CUDA or
transformers):
    HIPFILE_LIBRARY=build/lib/libhipfile.so.0 PYTHONPATH=python \\
        python3 tests/python/gpu_transformers_door.py DIR
"""
import gc
import json
import os
import shutil
import sys

try:
    import torch
    if not torch.cuda.is_available():
        raise ImportError("PyTorch has no CUDA device")
    import safetensors.torch
    import transformers
    from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM
except ImportError as error:
    print("skipped: %s" % error)
    sys.exit(77)

import hipfile._route_transformers as door_module
from hipfile import safetensors as hst

transformers.logging.set_verbosity_error()
work = sys.argv[1] if len(sys.argv) > 1 else "/var/tmp/hipfile-door"
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
ok = {}
DEV = "cuda:0"

# How many loads took the bulk door, counted where the door sets the tensors read.
taken = [0]
_load = door_module.Door._load


def counting_load(self, *args, **kwargs):
    taken[0] += 1
    return _load(self, *args, **kwargs)


door_module.Door._load = counting_load


def build(directory, tie, shard="2MB", seed=0):
    torch.manual_seed(seed)
    config = LlamaConfig(hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2, vocab_size=1000,
                         tie_word_embeddings=tie)
    model = LlamaForCausalLM(config).to(torch.bfloat16)
    model.save_pretrained(directory, max_shard_size=shard)
    return sorted(f for f in os.listdir(directory) if f.endswith(".safetensors"))


def same_model(a, b):
    pa, pb = dict(a.named_parameters()), dict(b.named_parameters())
    ba, bb = dict(a.named_buffers()), dict(b.named_buffers())
    return (sorted(pa) == sorted(pb) and sorted(ba) == sorted(bb) and
            all(pa[k].dtype == pb[k].dtype and pa[k].device == pb[k].device and
                pa[k].requires_grad == pb[k].requires_grad and torch.equal(pa[k], pb[k])
                for k in pa) and
            all(ba[k].device == bb[k].device and torch.equal(ba[k], bb[k]) for k in ba) and
            a.training == b.training)


def load(directory, routed, **kwargs):
    kwargs.setdefault("dtype", torch.bfloat16)
    kwargs.setdefault("device_map", DEV)
    if routed:
        with hst.route(device=DEV):
            return AutoModelForCausalLM.from_pretrained(directory, **kwargs)
    return AutoModelForCausalLM.from_pretrained(directory, **kwargs)


untied = os.path.join(work, "untied")
shards = build(untied, tie=False)
ok["several shards"] = len(shards) >= 3
stock = load(untied, False)
before = taken[0]
routed = load(untied, True)
ok["bulk door taken"] = taken[0] == before + 1
ok["bulk door equals stock"] = same_model(stock, routed)
ok["parameters on the device"] = all(p.device == torch.device(DEV) for p in routed.parameters())
del routed

# The dtype the caller asks for: the tensors are cast as transformers casts them.
stock32 = load(untied, False, dtype=torch.float32)
before = taken[0]
routed32 = load(untied, True, dtype=torch.float32)
ok["cast to float32 equals stock"] = taken[0] == before + 1 and same_model(stock32, routed32)
del stock32, routed32

tied = os.path.join(work, "tied")
build(tied, tie=True, seed=1)
stock_tied, routed_tied = load(tied, False), load(tied, True)
ok["tied embeddings"] = same_model(stock_tied, routed_tied) and \
    routed_tied.lm_head.weight.data_ptr() == routed_tied.model.embed_tokens.weight.data_ptr()
del stock_tied, routed_tied

# An unexpected tensor and a missing one: the same report as the stock load.
odd = os.path.join(work, "odd")
shutil.copytree(untied, odd)
last = os.path.join(odd, shards[-1])
tensors = safetensors.torch.load_file(last)
dropped = sorted(tensors)[0]
del tensors[dropped]
tensors["model.extra_tensor"] = torch.ones(3, dtype=torch.bfloat16)
safetensors.torch.save_file(tensors, last, metadata={"format": "pt"})
index_path = os.path.join(odd, "model.safetensors.index.json")
with open(index_path) as stream:
    index = json.load(stream)
del index["weight_map"][dropped]
index["weight_map"]["model.extra_tensor"] = shards[-1]
with open(index_path, "w") as stream:
    json.dump(index, stream)
_, info_stock = load(odd, False, output_loading_info=True)
before = taken[0]
odd_routed, info_routed = load(odd, True, output_loading_info=True)
ok["unexpected and missing reported as stock"] = (
    taken[0] == before + 1 and info_stock == info_routed and
    dropped in info_routed["missing_keys"] and
    "model.extra_tensor" in info_routed["unexpected_keys"])
ok["every other parameter equal"] = all(
    torch.equal(p, dict(stock.named_parameters())[n])
    for n, p in odd_routed.named_parameters() if n != dropped)
del odd_routed

# Loads the door leaves to transformers, reading through safe_open: still equal.
before = taken[0]
auto = load(untied, True, device_map="auto")
whole = {}
for shard in shards:
    whole.update(safetensors.torch.load_file(os.path.join(untied, shard)))
with hst.route(device=DEV):
    given = LlamaForCausalLM.from_pretrained(
        None, config=LlamaConfig.from_pretrained(untied), state_dict=whole,
        dtype=torch.bfloat16, device_map=DEV)
on_cpu = load(untied, True, device_map="cpu")
ok["auto, state_dict and cpu keep transformers' loader"] = taken[0] == before and \
    same_model(stock, auto) and same_model(stock, given) and \
    all(torch.equal(p.cpu(), dict(stock.named_parameters())[n].cpu())
        for n, p in on_cpu.named_parameters())
del auto, given, on_cpu, whole

# A shard cut short: SafetensorError naming it, and nothing left on the device.
short = os.path.join(work, "short")
shutil.copytree(untied, short)
cut = os.path.join(short, shards[1])
with open(cut, "r+b") as stream:
    stream.truncate(os.path.getsize(cut) - 4096)
gc.collect()
torch.cuda.synchronize()
baseline = torch.cuda.memory_allocated()
try:
    load(short, True)
    ok["short shard raises"] = False
except hst.SafetensorError as error:
    ok["short shard raises"] = shards[1] in str(error)
gc.collect()
torch.cuda.synchronize()
ok["no device memory left after the failure"] = torch.cuda.memory_allocated() == baseline

# After the block, transformers' own functions are back.
import transformers.modeling_utils as mu  # noqa: E402

ok["names put back"] = all(getattr(mu, name).__module__.startswith("transformers")
                           for name in door_module._HOOKED)
ok["stock after routed equal"] = same_model(stock, load(untied, False))

for name, passed in ok.items():
    print("%-50s %s" % (name, "ok" if passed else "FAILED"))
if all(ok.values()):
    print("all ok")
sys.exit(0 if all(ok.values()) else 1)
