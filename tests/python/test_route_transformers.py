"""route(device=...)'s bulk door for from_pretrained, on the host, against a stand-in for the
parts of transformers 5 it hooks: the loading steps called by name from modeling_utils, and the
core_model_loading helpers it sets tensors with. The stand-in loads the way transformers does
(quantizer and device map, shard files, model on the meta device, allocator warm-up, then the
state dict of safe_open slices); the real package is checked on a GPU by
gpu_transformers_door.py.

Checks: the door takes a one-to-one checkpoint (every tensor equal, unexpected and missing keys
reported, a cast to the parameter's dtype, the warm-up skipped, transformers' own loader not
called), leaves every other load to that loader (a converter, a quantizer, device_map "auto",
a state_dict passed in), fails a shard cut short with SafetensorError naming it, drops a read no
load took or a load gave up, has ended the reading thread when a load returns, and puts every
name back.
"""

import os
import sys
import threading
import time
import types

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hipfile import _route_transformers as door  # noqa: E402
from hipfile import safetensors as st  # noqa: E402


class LoadStateDictInfo:
    def __init__(self, **fields):
        self.__dict__.update(fields)


class WeightRenaming:
    def __init__(self, source, target):
        self.source, self.target, self.used = source, target, False

    def was_used(self):
        return self.used


class WeightConverter:
    def __init__(self, pattern):
        self.source_patterns, self.used = [pattern], False

    def was_used(self):
        return self.used


def rename_source_key(key, renamings, converters, base_model_prefix=None, meta_state_dict=None):
    for renaming in renamings:
        if key.startswith(renaming.source):
            key, renaming.used = renaming.target + key[len(renaming.source):], True
    for converter in converters:
        if converter.source_patterns[0] in key:
            converter.used = True
            return key, converter.source_patterns[0]
    return key, None


def set_param_for_module(model, name, value, info, hf_quantizer):
    path, _, leaf = name.rpartition(".")
    module = model.get_submodule(path) if path else model
    info.missing_keys.discard(name)
    setattr(module, leaf, torch.nn.Parameter(value, requires_grad=value.is_floating_point()))


def _add_unmatched_checkpoint_key(name, model, info):
    info.unexpected_keys.add(name)


def get_device(device_map, name, valid_torch_device=False):
    return device_map.get(name, device_map.get("", "cpu"))


class LoadConfig:
    def __init__(self, device_map, quantizer, mapping):
        self.hf_quantizer, self.device_map, self.device_mesh = quantizer, device_map, None
        self.dtype_plan, self.weight_mapping = {}, mapping


class Model(torch.nn.Module):
    base_model_prefix = "model"

    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 4)
        self.head = torch.nn.Linear(4, 2, bias=False)


def make_transformers(theirs_safe_open):
    """The stand-in package: transformers, transformers.modeling_utils (with a from_pretrained
    calling its steps by name) and transformers.core_model_loading."""
    package = types.ModuleType("transformers")
    loader = types.ModuleType("transformers.core_model_loading")
    for value in (LoadStateDictInfo, WeightRenaming, WeightConverter, rename_source_key,
                  set_param_for_module, _add_unmatched_checkpoint_key, get_device):
        setattr(loader, value.__name__, value)
    loader.is_dtensor = lambda tensor: False
    loader.dot_natural_key = lambda key: key
    loader.stock_loads = 0

    def convert_and_load_state_dict_in_model(model, state_dict, load_config,
                                             disk_offload_index=None):
        loader.stock_loads += 1
        meta = model.state_dict()
        info = LoadStateDictInfo(missing_keys=set(meta), unexpected_keys=set(),
                                 mismatched_keys=set(), conversion_errors={}, error_msgs=[],
                                 skipped_pp_keys=set())
        mapping = load_config.weight_mapping or []
        for name, value in state_dict.items():
            renamed, _ = rename_source_key(
                name, [m for m in mapping if isinstance(m, WeightRenaming)],
                [m for m in mapping if isinstance(m, WeightConverter)])
            tensor = value[...] if not isinstance(value, torch.Tensor) else value
            if renamed in meta:
                set_param_for_module(model, renamed, tensor.to(meta[renamed].dtype), info, None)
            else:
                info.unexpected_keys.add(renamed)
        return info, disk_offload_index

    loader.convert_and_load_state_dict_in_model = convert_and_load_state_dict_in_model
    modeling = types.ModuleType("transformers.modeling_utils")
    modeling.warmups = 0
    modeling.safe_open = theirs_safe_open
    modeling.convert_and_load_state_dict_in_model = convert_and_load_state_dict_in_model

    def get_hf_quantizer(config, quantization_config, device_map, weights_only=True):
        return quantization_config, config, device_map

    def _get_resolved_checkpoint_files(path):
        return sorted(os.path.join(path, f) for f in os.listdir(path)
                      if f.endswith(".safetensors")), None

    def caching_allocator_warmup(model, expanded_device_map, hf_quantizer):
        modeling.warmups += 1

    def from_pretrained(path, device_map, quantization=None, state_dict=None, mapping=(),
                        dtype=torch.float32, fail_building=False):
        # The steps of transformers 5's from_pretrained, each called by its global name.
        g = modeling.__dict__
        quantizer, _, device_map = g["get_hf_quantizer"](None, quantization, device_map)
        files, _ = g["_get_resolved_checkpoint_files"](path)
        if fail_building:
            raise RuntimeError("the model could not be built")
        # transformers builds on the meta device; the parameters are replaced either way.
        model = Model().to(dtype)
        device_map = device_map if isinstance(device_map, dict) else {"": device_map}
        g["caching_allocator_warmup"](model, {k: device_map[""] for k in model.state_dict()},
                                      quantizer)
        pointers = []
        if state_dict is None:
            state_dict = {}
            for file in files:
                pointer = g["safe_open"](file, framework="pt", device="cpu")
                pointers.append(pointer)
                state_dict.update({k: pointer.get_slice(k) for k in pointer.keys()})
        config = LoadConfig(device_map, quantizer, list(mapping))
        info, _ = g["convert_and_load_state_dict_in_model"](
            model=model, state_dict=state_dict, load_config=config, disk_offload_index=None)
        for pointer in pointers:
            pointer.__exit__(None, None, None)
        return model, info

    for value in (get_hf_quantizer, _get_resolved_checkpoint_files, caching_allocator_warmup,
                  from_pretrained):
        setattr(modeling, value.__name__, value)
    package.modeling_utils, package.core_model_loading = modeling, loader
    return package, modeling, loader


@pytest.fixture
def transformers(monkeypatch):
    """The stand-in packages in sys.modules, with the door serving the host."""
    safetensors = types.ModuleType("safetensors")
    safetensors_torch = types.ModuleType("safetensors.torch")
    safetensors.safe_open = lambda *args, **kwargs: pytest.fail("their safe_open was called")
    safetensors_torch.load_file = lambda *args, **kwargs: pytest.fail("their load_file")
    safetensors.torch = safetensors_torch
    package, modeling, loader = make_transformers(safetensors.safe_open)
    for name, module in (("safetensors", safetensors), ("safetensors.torch", safetensors_torch),
                         ("transformers", package), ("transformers.modeling_utils", modeling),
                         ("transformers.core_model_loading", loader)):
        monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(door, "BULK_DEVICE_TYPES", ("cuda", "cpu"))
    reads = []
    original = door._BulkRead.__init__

    def counted(self, files, device):
        reads.append(self)
        original(self, files, device)

    monkeypatch.setattr(door._BulkRead, "__init__", counted)
    modeling.bulk_reads = reads
    return modeling, loader


@pytest.fixture
def checkpoint(workdir):
    rng = np.random.default_rng(5)
    tensors = {"layer.weight": torch.from_numpy(rng.standard_normal((4, 8), dtype=np.float32)),
               "layer.bias": torch.from_numpy(rng.standard_normal(4, dtype=np.float32)),
               "head.weight": torch.from_numpy(rng.standard_normal((2, 4), dtype=np.float32))}
    directory = os.path.join(workdir, "ckpt")
    st.save_checkpoint(tensors, directory, max_shard_size=100)
    return directory, tensors


def load(modeling, directory, **kwargs):
    with st.route(device="cpu"):
        return modeling.from_pretrained(directory, **kwargs)


def test_one_to_one_checkpoint_is_read_in_bulk_and_set_into_the_model(transformers, checkpoint):
    modeling, loader = transformers
    directory, tensors = checkpoint
    assert len([f for f in os.listdir(directory) if f.endswith(".safetensors")]) >= 2
    model, info = load(modeling, directory, device_map="cpu")
    assert len(modeling.bulk_reads) == 1 and loader.stock_loads == 0 and modeling.warmups == 0
    got = dict(model.named_parameters())
    assert sorted(got) == sorted(tensors)
    assert all(torch.equal(got[name], tensors[name]) for name in tensors)
    assert info.missing_keys == set() and info.unexpected_keys == set()
    # Every name is put back.
    for name in door._HOOKED:
        assert getattr(modeling, name).__module__ != door.__name__
    assert modeling.safe_open is sys.modules["safetensors"].safe_open


def test_each_tensor_is_cast_to_its_parameter_s_dtype(transformers, checkpoint):
    modeling, _ = transformers
    directory, tensors = checkpoint
    model, _ = load(modeling, directory, device_map="cpu", dtype=torch.float64)
    got = dict(model.named_parameters())
    assert all(got[n].dtype == torch.float64 and torch.equal(got[n], tensors[n].double())
               for n in tensors)


def test_unexpected_and_missing_tensors_are_reported(transformers, checkpoint, workdir):
    modeling, loader = transformers
    _, tensors = checkpoint
    odd = dict(tensors)
    del odd["head.weight"]
    odd["extra"] = torch.ones(3)
    directory = os.path.join(workdir, "odd")
    st.save_checkpoint(odd, directory)
    _, info = load(modeling, directory, device_map="cpu")
    assert loader.stock_loads == 0
    assert info.missing_keys == {"head.weight"} and info.unexpected_keys == {"extra"}


@pytest.mark.parametrize("kwargs", [
    {"mapping": [WeightConverter("layer.")]},
    {"quantization": object()},
    {"device_map": "auto"},
    {"state_dict": "given"},
])
def test_other_loads_keep_transformers_loader(transformers, checkpoint, kwargs):
    modeling, loader = transformers
    directory, tensors = checkpoint
    kwargs = dict(kwargs)
    kwargs.setdefault("device_map", "cpu")
    if kwargs.get("state_dict") == "given":
        kwargs["state_dict"] = {name: tensor.clone() for name, tensor in tensors.items()}
    model, _ = load(modeling, directory, **kwargs)
    assert loader.stock_loads == 1
    # A quantized or "auto" load does not even start a bulk read.
    if "quantization" in kwargs or kwargs["device_map"] == "auto":
        assert modeling.bulk_reads == []
    got = dict(model.named_parameters())
    assert all(torch.equal(got[name], tensors[name]) for name in tensors)


def test_a_shard_cut_short_raises_naming_it(transformers, checkpoint):
    modeling, _ = transformers
    directory, _ = checkpoint
    shard = sorted(f for f in os.listdir(directory) if f.endswith(".safetensors"))[-1]
    path = os.path.join(directory, shard)
    with open(path, "r+b") as stream:
        stream.truncate(os.path.getsize(path) - 8)
    with pytest.raises(st.SafetensorError, match=shard):
        load(modeling, directory, device_map="cpu")


def test_a_read_no_load_took_is_dropped_when_the_block_ends(transformers, checkpoint):
    modeling, loader = transformers
    directory, _ = checkpoint
    with pytest.raises(RuntimeError, match="could not be built"):
        load(modeling, directory, device_map="cpu", fail_building=True)
    assert len(modeling.bulk_reads) == 1
    assert not modeling.bulk_reads[0]._thread.is_alive()
    assert not any(t.name == "hipfile-bulk-read" for t in threading.enumerate())
    # The next load in a new block is not served what the failed one read.
    model, _ = load(modeling, directory, device_map="cpu")
    assert len(modeling.bulk_reads) == 2 and loader.stock_loads == 0


def test_the_reading_thread_has_ended_when_the_load_returns(transformers, checkpoint,
                                                             monkeypatch):
    # A reading thread slow to end after its last tensor (descheduled on a loaded machine) is
    # waited for: one still dropping its tensors when the interpreter exits aborts the process.
    modeling, _ = transformers
    directory, tensors = checkpoint
    original = door._BulkRead._run

    def slow_to_end(self, *args):
        original(self, *args)
        time.sleep(0.3)

    monkeypatch.setattr(door._BulkRead, "_run", slow_to_end)
    model, _ = load(modeling, directory, device_map="cpu")
    assert not modeling.bulk_reads[0]._thread.is_alive()
    assert not any(t.name == "hipfile-bulk-read" for t in threading.enumerate())
    got = dict(model.named_parameters())
    assert all(torch.equal(got[name], tensors[name]) for name in tensors)


def test_a_tensor_the_model_refuses_ends_the_read(transformers, checkpoint, monkeypatch):
    modeling, loader = transformers

    def refuse(model, name, value, info, hf_quantizer):
        raise ValueError("%s does not fit the model" % name)

    monkeypatch.setattr(loader, "set_param_for_module", refuse)
    directory, _ = checkpoint
    with pytest.raises(ValueError, match="does not fit the model"):
        load(modeling, directory, device_map="cpu")
    assert len(modeling.bulk_reads) == 1
    assert not modeling.bulk_reads[0]._thread.is_alive()
    assert not any(t.name == "hipfile-bulk-read" for t in threading.enumerate())
