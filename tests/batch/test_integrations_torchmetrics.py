"""irscore.integrations.torchmetrics: the Accumulator's numbers as a torchmetrics Metric,
in a MetricCollection, against torchmetrics' own retrieval metrics where the definitions
agree, and under DDP (two processes, gloo, CPU): one all-reduce of a fixed-size state."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
torchmetrics = pytest.importorskip("torchmetrics")

from irscore import batch  # noqa: E402
from irscore.integrations.torchmetrics import RetrievalMeasures  # noqa: E402

NAMES = ["nDCG@10", "AP", "RR", "P@5"]


def batches(seed, n=6, nq=16, m=40):
    rng = np.random.default_rng(seed)
    return [(torch.as_tensor(rng.standard_normal((nq, m))), torch.as_tensor(rng.integers(0, 3, (nq, m))))
            for _ in range(n)]


def test_equals_the_accumulator():
    metric = RetrievalMeasures(NAMES)
    acc = batch.Accumulator(NAMES)
    for sc, lb in batches(0):
        metric.update(sc, lb)
        acc.update(sc, lb)
    got = metric.compute()
    assert {k: float(v) for k, v in got.items()} == acc.compute()
    assert all(v.dtype == torch.float64 for v in got.values())
    metric.reset()
    assert int(metric.n_queries) == 0


def test_device_path_on_cpu_tensors_equals_the_native_path():
    a = RetrievalMeasures(NAMES)
    b = RetrievalMeasures(NAMES, device_path="torch")
    for sc, lb in batches(1):
        a.update(sc, lb)
        b.update(sc, lb)
    assert {k: float(v) for k, v in a.compute().items()} == {k: float(v) for k, v in b.compute().items()}


def test_forward_and_metric_collection():
    metric = RetrievalMeasures(NAMES)
    sc, lb = batches(2, n=1)[0]
    step = metric(sc, lb)                   # forward: this batch's values, state kept
    want = {k: float(np.mean(v)) for k, v in batch.evaluate(sc, lb, NAMES).items()}
    assert {k: float(v) for k, v in step.items()} == pytest.approx(want, abs=1e-15)
    coll = torchmetrics.MetricCollection({"ir": RetrievalMeasures(NAMES)})
    for sc, lb in batches(2):
        coll.update(sc, lb)
    out = coll.compute()
    acc = batch.Accumulator(NAMES)
    for sc, lb in batches(2):
        acc.update(sc, lb)
    ref = acc.compute()
    for k in NAMES:
        key = next(x for x in out if x.endswith(k))
        assert float(out[key]) == ref[k]


def test_against_torchmetrics_retrieval_metrics_where_definitions_agree():
    # torchmetrics' retrieval metrics take flat preds/target with query indexes; with positive
    # scores, no ties and empty_target_action='neg' their definitions are trec_eval's
    from torchmetrics.retrieval import RetrievalMAP, RetrievalMRR, RetrievalNormalizedDCG, RetrievalPrecision
    rng = np.random.default_rng(5)
    nq, m = 200, 30
    scores = rng.permutation(nq * m).reshape(nq, m).astype(np.float64) + 1.0      # distinct, positive
    labels = rng.integers(0, 2, (nq, m))
    idx = torch.arange(nq).repeat_interleave(m)
    p, t = torch.as_tensor(scores.reshape(-1)), torch.as_tensor(labels.reshape(-1))
    ours = RetrievalMeasures(["nDCG@10", "AP", "RR", "P@5"])
    ours.update(p, t, indexes=idx)
    got = {k: float(v) for k, v in ours.compute().items()}
    ref = {"nDCG@10": RetrievalNormalizedDCG(top_k=10), "AP": RetrievalMAP(), "RR": RetrievalMRR(),
           "P@5": RetrievalPrecision(top_k=5)}
    for k, metric in ref.items():
        metric.update(p, t.bool() if k != "nDCG@10" else t, indexes=idx)
        assert got[k] == pytest.approx(float(metric.compute()), abs=1e-6), k


def test_bad_input():
    metric = RetrievalMeasures(["AP"])
    with pytest.raises(ValueError, match="indexes"):
        metric.update(torch.rand(6), torch.zeros(6), indexes=torch.zeros(5, dtype=torch.long))
    with pytest.raises(ValueError, match="device_path"):
        RetrievalMeasures(["AP"], device_path="offload")


DDP_SCRIPT = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import torch
    import torch.distributed as dist
    from irscore.integrations.torchmetrics import RetrievalMeasures

    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    names = ["nDCG@10", "AP", "RR", "P@5"]
    rng = np.random.default_rng(11)
    n_batches = int(sys.argv[2])
    data = [(torch.as_tensor(rng.standard_normal((16, 40))), torch.as_tensor(rng.integers(0, 3, (16, 40))))
            for _ in range(n_batches)]
    metric = RetrievalMeasures(names)
    for i, (sc, lb) in enumerate(data):
        if i % world == rank:            # each rank sees its share of the batches
            metric.update(sc, lb)
    sent = sum(t.numel() * t.element_size() for t in (metric.limbs, metric.counts, metric.n_queries,
                                                           metric.refused))
    out = {k: float(v) for k, v in metric.compute().items()}
    if rank == 0:
        single = RetrievalMeasures(names, sync_on_compute=False)   # this process alone
        for sc, lb in data:
            single.update(sc, lb)
        ref = {k: float(v) for k, v in single.compute().items()}
        with open(sys.argv[1], "w") as f:
            json.dump({"ddp": out, "single": ref, "bytes": sent}, f)
    dist.destroy_process_group()
""")


@pytest.mark.slow
def test_ddp_all_reduce_equals_the_single_process_result(tmp_path):
    script = tmp_path / "ddp.py"
    script.write_text(DDP_SCRIPT)
    sent = []
    for n_batches in (1, 5, 40):       # 1: rank 1 has no update; 5: 3 batches against 2
        out = tmp_path / f"out{n_batches}.json"
        env = dict(os.environ, OMP_NUM_THREADS="1")
        proc = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc_per_node=2",
                               "--standalone", str(script), str(out),
                               str(n_batches)], env=env, capture_output=True, text=True, timeout=180)
        assert proc.returncode == 0, proc.stderr[-3000:]
        res = json.loads(out.read_text())
        assert res["ddp"] == res["single"]          # exact, not approximately
        sent.append(res["bytes"])
    assert sent[0] == sent[1] == sent[2]            # the state does not grow with the queries


def test_pytorch_lightning_validation_loop_logs_the_accumulator_numbers():
    pl = pytest.importorskip("pytorch_lightning")
    from torch.utils.data import DataLoader, TensorDataset

    rng = np.random.default_rng(21)
    feats = torch.as_tensor(rng.standard_normal((96, 30, 4)), dtype=torch.float32)
    labels = torch.as_tensor(rng.integers(0, 3, (96, 30)))

    class Ranker(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 1)
            self.val_ir = RetrievalMeasures(NAMES)

        def forward(self, x):
            return self.lin(x).squeeze(-1)

        def validation_step(self, batch_, batch_idx):
            x, y = batch_
            self.val_ir.update(self(x), y)

        def on_validation_epoch_end(self):
            self.log_dict({f"val/{k}": v for k, v in self.val_ir.compute().items()})
            self.val_ir.reset()

    model = Ranker()
    loader = DataLoader(TensorDataset(feats, labels), batch_size=16)
    trainer = pl.Trainer(accelerator="cpu", devices=1, logger=False, enable_checkpointing=False,
                         enable_progress_bar=False, enable_model_summary=False)
    logged = trainer.validate(model, loader, verbose=False)[0]
    acc = batch.Accumulator(NAMES)
    with torch.no_grad():
        for i in range(0, 96, 16):
            acc.update(model(feats[i:i + 16]), labels[i:i + 16])
    ref = acc.compute()
    for k in NAMES:
        assert logged[f"val/{k}"] == pytest.approx(ref[k], abs=1e-7)   # Lightning logs float32


@pytest.mark.parametrize("dtype", [torch.float16, torch.float64, torch.bfloat16])
def test_set_dtype_keeps_the_integer_sums(dtype):
    # torchmetrics' set_dtype converts every state: the limbs and counts must stay int64
    metric = RetrievalMeasures(NAMES)
    acc = batch.Accumulator(NAMES)
    data = batches(4)
    for sc, lb in data[:3]:
        metric.update(sc, lb)
        acc.update(sc, lb)
    metric.set_dtype(dtype)
    assert metric.limbs.dtype == metric.counts.dtype == metric.n_queries.dtype == torch.int64
    for sc, lb in data[3:]:
        metric.update(sc, lb)
        acc.update(sc, lb)
    assert {k: float(v) for k, v in metric.compute().items()} == acc.compute()
    metric.reset()
    assert metric.limbs.dtype == torch.int64 and int(metric.n_queries) == 0


def test_clone_and_pickle():
    import pickle
    metric = RetrievalMeasures(NAMES)
    data = batches(5)
    for sc, lb in data[:3]:
        metric.update(sc, lb)
    want = {k: float(v) for k, v in metric.compute().items()}
    for other in (metric.clone(), pickle.loads(pickle.dumps(metric))):
        assert {k: float(v) for k, v in other.compute().items()} == want
        other.update(*data[3])
        assert int(other.n_queries) == int(metric.n_queries) + 16
    assert {k: float(v) for k, v in metric.compute().items()} == want


def test_unchecked_refused_batch_is_reported_at_compute():
    # check_inputs=False on the device path: no host synchronisation in update(); a batch
    # whose per-query values are not finite adds nothing and compute() says so
    sc, lb = batches(6, n=1)[0]
    names = ["nDCG(gain=exp)@10", "AP"]
    metric = RetrievalMeasures(names, device_path="torch", check_inputs=False)
    metric.update(sc, lb)
    metric.update(sc, lb * 2000)
    with pytest.raises(ValueError, match="not finite"):
        metric.compute()
    checked = RetrievalMeasures(names, device_path="torch")
    checked.update(sc, lb)
    with pytest.raises(ValueError, match="below 1024"):
        checked.update(sc, lb * 2000)
    assert int(checked.n_queries) == 16
    metric.reset()
    metric.update(sc, lb)
    assert {k: float(v) for k, v in metric.compute().items()} == {k: float(v) for k, v in checked.compute().items()}


def test_states_on_another_device_than_the_tensors_are_named():
    metric = RetrievalMeasures(NAMES).to("meta")
    assert metric.limbs.device.type == "meta" and metric.limbs.dtype == torch.int64
    sc, lb = batches(7, n=1)[0]
    with pytest.raises(ValueError, match="preds: on the CPU, this metric's states on meta"):
        metric.update(sc, lb)
