#!/usr/bin/env python3
"""The checked-in recipes for a sharded campaign (deploy/), run here as far as this machine allows:
no Kubernetes cluster, no Docker engine and no GitHub runner, so each recipe's own script is run
as its runner would run it. The Indexed Job's pod script, once per index with JOB_COMPLETION_INDEX
set, then the merge Job's; the workflow's shard step once per matrix entry, the artifacts laid out
as download-artifact lays them, then its merge step. Each merged campaign must be the campaign run
at once (summary.json alike but for seconds and folders). The manifests' invariants (N in
completions, parallelism, SHARDS and the matrix; exit 1 not a pod failure, exit 2 failing the Job)
and the Dockerfile's build and entry point are checked as written.
Usage: recipes_test.py LOCKSTEP SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

LOCKSTEP, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
DEPLOY = os.path.join(ROOT, "deploy")
failures = []
COUNT, SEED = "15", "100"


def expect(condition, what):
    if not condition:
        failures.append(what)
    return condition


def summary(folder, spelled):
    """summary.json without its seconds, the folder as the campaign spelled it written OUT."""
    s = json.load(open(os.path.join(folder, "summary.json")))
    s.pop("seconds")
    return json.loads(json.dumps(s).replace(f'"{spelled}/', '"OUT/'))


def same_campaign(reference, folder, what, spelled=None):
    a, b = summary(reference, reference), summary(folder, spelled or folder)
    for k in sorted(set(a) | set(b)):
        expect(a.get(k) == b.get(k), f"{what}: {k} is {b.get(k)!r}, at once {a.get(k)!r}")


def env_of(container):
    return {e["name"]: str(e["value"]) for e in container.get("env", [])}


def run_script(shell, script, env, cwd=None):
    return subprocess.run([shell, "-c", script], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def main(tmp):
    toy = os.path.join(tmp, "targets.json")
    json.dump({"targets": {"fast": {"profile": "locks", "command":
               f"bash {ROOT}/tests/toy-target/shared-granted-as-exclusive.sh {LOCKSTEP} {{trace}} {{log}}"}}},
              open(toy, "w"))
    reference = os.path.join(tmp, "at-once")
    done = subprocess.run([LOCKSTEP, "fuzz", "--targets", toy, "--target", "fast", "--count", COUNT,
                           "--seed", SEED, "--out", reference], capture_output=True, text=True)
    if not expect(done.returncode == 1, f"the campaign at once exits {done.returncode}, expected 1 "
                  f"(failures kept): {done.stderr[-300:]}"):
        return
    # `lockstep` on the PATH, as the image links it.
    bin_dir = os.path.join(tmp, "bin")
    os.makedirs(bin_dir)
    os.symlink(LOCKSTEP, os.path.join(bin_dir, "lockstep"))
    path = bin_dir + os.pathsep + os.environ["PATH"]

    # Kubernetes: the Indexed Job, then the merge Job.
    job = yaml.safe_load(open(os.path.join(DEPLOY, "kubernetes/fuzz-shards.yaml")))
    spec = job["spec"]
    pod = spec["template"]["spec"]
    (container,) = pod["containers"]
    env = env_of(container)
    n = int(env["SHARDS"])
    expect(job["kind"] == "Job" and spec["completionMode"] == "Indexed", "not an Indexed Job")
    expect(spec["completions"] == n and spec["parallelism"] == n,
           f"completions {spec['completions']} and parallelism {spec['parallelism']}, SHARDS {n}")
    expect(pod["restartPolicy"] == "Never", "a pod failure policy needs restartPolicy Never")
    rules = spec["podFailurePolicy"]["rules"]
    expect(any(r["action"] == "FailJob" and r["onExitCodes"]["values"] == [2]
               and r["onExitCodes"]["containerName"] == container["name"] for r in rules),
           "bad input (exit 2) does not fail the Job")
    expect(container["command"] == ["sh", "-c"], "the pod's command is not sh -c SCRIPT")
    script = container["args"][0]
    results = os.path.join(tmp, "results")
    pod_env = {**os.environ, **env, "PATH": path, "TARGET": "fast", "COUNT": COUNT, "SEED": SEED,
               "RESULTS": results, "TARGETS": toy}
    for i in range(n):
        ran = run_script("sh", script, dict(pod_env, JOB_COMPLETION_INDEX=str(i)))
        expect(ran.returncode == 0, f"pod {i} exits {ran.returncode}: {ran.stderr[-300:]}")
    # A pod started again (evicted, say) resumes its shard: nothing run twice, the same summary.
    before = open(os.path.join(results, "shard-1/progress.jsonl")).read()
    ran = run_script("sh", script, dict(pod_env, JOB_COMPLETION_INDEX="1"))
    expect(ran.returncode == 0 and "--resume" not in ran.stderr, f"pod 1 again: {ran.stderr[-300:]}")
    expect(open(os.path.join(results, "shard-1/progress.jsonl")).read() == before,
           "pod 1 started again did not resume its shard")
    bad = run_script("sh", script, dict(pod_env, JOB_COMPLETION_INDEX="0", TARGET="no-such"))
    expect(bad.returncode == 2, f"a pod given an unknown target exits {bad.returncode}, not 2")

    merge = yaml.safe_load(open(os.path.join(DEPLOY, "kubernetes/merge.yaml")))
    (merger,) = merge["spec"]["template"]["spec"]["containers"]
    expect(env_of(merger)["SHARDS"] == str(n), "the merge Job's SHARDS is not the Indexed Job's")
    expect(merger["command"] == ["sh", "-c"], "the merge's command is not sh -c SCRIPT")
    ran = run_script("sh", merger["args"][0],
                     {**os.environ, **env_of(merger), "PATH": path, "RESULTS": results})
    if expect(ran.returncode == 0, f"the merge pod exits {ran.returncode}: {ran.stderr[-300:]}"):
        same_campaign(reference, os.path.join(results, "merged"), "Indexed Job, merged")

    # GitHub Actions: each matrix entry's shard step, the artifacts, the merge step.
    workflow = yaml.safe_load(open(os.path.join(ROOT, ".github/workflows/fuzz-shards.yml")))
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    expect("workflow_dispatch" in triggers, "the workflow is not started by hand")
    shards = int(workflow["env"]["SHARDS"])
    matrix = workflow["jobs"]["shard"]["strategy"]["matrix"]["shard"]
    expect(matrix == list(range(shards)), f"the matrix {matrix} is not shards 0..{shards - 1}")
    step = {s.get("name"): s for job in workflow["jobs"].values() for s in job["steps"]}
    work = os.path.join(tmp, "checkout")
    os.makedirs(os.path.join(work, "build"))
    os.symlink(LOCKSTEP, os.path.join(work, "build/lockstep"))
    runner_env = dict(os.environ, SHARDS=str(shards), TARGET="fast", COUNT=COUNT, SEED=SEED,
                      TARGETS=toy)
    for i in matrix:
        ran = run_script("bash", "set -e\n" + step["run the shard"]["run"],
                         dict(runner_env, SHARD=str(i)), cwd=work)
        expect(ran.returncode == 0, f"matrix job {i} exits {ran.returncode}: {ran.stderr[-300:]}")
        # download-artifact with a pattern puts each artifact in a folder of its name.
        os.makedirs(os.path.join(work, "shards"), exist_ok=True)
        shutil.move(os.path.join(work, f"shard-{i}"), os.path.join(work, "shards", f"shard-{i}"))
    ran = run_script("bash", "set -e\n" + step["merge"]["run"], runner_env, cwd=work)
    if expect(ran.returncode == 1, f"the merge step exits {ran.returncode}, not 1 (failures "
              f"kept): {ran.stderr[-300:]}"):
        same_campaign(reference, os.path.join(work, "merged"), "workflow, merged", "merged")

    # The image: built as the README's set-up builds, `lockstep` on its PATH, the registry beside.
    dockerfile = open(os.path.join(DEPLOY, "Dockerfile")).read()
    for needed in ("FROM debian:bookworm", "bash scripts/install-deps.sh --for-tests",
                   "cmake --preset release", "ln -s /lockstep/build/lockstep /usr/local/bin/lockstep",
                   'ENTRYPOINT ["lockstep"]'):
        expect(needed in dockerfile, f"the Dockerfile lacks: {needed}")
    expect(container["image"].split(":")[0] == "lockstep" and env["TARGETS"] ==
           "/lockstep/adapters/targets.json", "the Job's image or registry is not the Dockerfile's")


tmp = tempfile.mkdtemp()
try:
    main(tmp)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
for f in failures:
    print("FAIL", f)
print("recipes:", "FAILED" if failures else "ok")
sys.exit(1 if failures else 0)
