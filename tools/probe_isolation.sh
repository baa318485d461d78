#!/usr/bin/env bash
# Probe, on a real cluster, what the templates cannot prove (docs/storage-and-isolation.md, issue 21):
#
# 1. NetworkPolicy enforcement per node kind. A server pod in a throwaway namespace with a default-deny ingress
#    NetworkPolicy is placed on each kind of node (HyperPod, Karpenter GPU/CPU pools, system nodes); a client pod in
#    a second throwaway namespace must NOT reach it. Control: the same client reaches a server without the policy.
#    The VPC CNI's network policy agent enforces policies with eBPF programs on each pod's host-side veth
#    (aws/aws-network-policy-agent README); nothing in AWS's HyperPod documentation states that this works on
#    HyperPod nodes, whose primary interface lives in a service-owned subnet, hence this probe.
# 2. supplementalGroupsPolicy support: every node's status.features.supplementalGroupsPolicy (the kubelet rejects a
#    pod with `Strict` on a node without it since Kubernetes v1.33). All true => the binding
#    llmft-team-supplemental-groups may switch from Warn/Audit to Deny (k8s_charts/team_isolation.py).
#
# Run as a platform admin (cluster-admin access entry), kube context on the platform cluster:
#   tools/probe_isolation.sh            # probes every node-type found
# Exit status 0 only if every probed node kind enforces the policy. Cleans up its namespaces.
set -euo pipefail

A=llmft-probe-client
B=llmft-probe-server
IMAGE=${PROBE_IMAGE:-public.ecr.aws/docker/library/busybox:1.37.0}
TIMEOUT=${PROBE_TIMEOUT:-120s}
failed=0

# shellcheck disable=SC2329  # invoked by the EXIT trap
cleanup() { kubectl delete namespace "$A" "$B" --ignore-not-found --wait=false >/dev/null; }
trap cleanup EXIT

echo "== supplementalGroupsPolicy support per node"
kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.name}{"\t"}{.metadata.labels.node-type}{"\t"}{.status.features.supplementalGroupsPolicy}{"\n"}{end}' \
  | awk -F'\t' '{printf "%-50s %-16s %s\n", $1, ($2 == "" ? "system/cpu" : $2), ($3 == "true" ? "Strict supported" : "NOT supported")}'

for ns in "$A" "$B"; do
  kubectl create namespace "$ns" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
  kubectl label namespace "$ns" pod-security.kubernetes.io/enforce=restricted --overwrite >/dev/null
done

pod() {  # name namespace node-selector-json command
  kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2, labels: {app: $1}}
spec:
  nodeSelector: $3
  tolerations: [{operator: Exists}]
  securityContext: {runAsNonRoot: true, runAsUser: 65534, seccompProfile: {type: RuntimeDefault}}
  containers:
  - name: c
    image: $IMAGE
    command: ["sh", "-c", "$4"]
    securityContext: {allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
    resources: {requests: {cpu: 10m, memory: 16Mi}, limits: {cpu: 100m, memory: 32Mi}}
EOF
}

kubectl apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny-to-denied, namespace: $B}
spec: {podSelector: {matchLabels: {probe: denied}}, policyTypes: [Ingress]}
EOF

pod client "$A" '{}' "sleep 3600"
kubectl wait -n "$A" --for=condition=Ready pod/client --timeout="$TIMEOUT" >/dev/null

for node_type in $(kubectl get nodes -o jsonpath='{range .items[*]}{.metadata.labels.node-type}{"\n"}{end}' | sort -u); do
  for kind in open denied; do
    name="srv-$node_type-$kind"
    pod "$name" "$B" "{node-type: $node_type}" "echo ok > /tmp/index.html && httpd -f -p 8080 -h /tmp"
    kubectl label pod -n "$B" "$name" "probe=$kind" --overwrite >/dev/null
  done
  kubectl wait -n "$B" --for=condition=Ready pod/"srv-$node_type-open" pod/"srv-$node_type-denied" \
    --timeout="$TIMEOUT" >/dev/null || { echo "node-type $node_type: server pods not ready, skipped"; continue; }
  sleep 10   # the policy agent programs new pods asynchronously
  reach() { kubectl exec -n "$A" client -- wget -q -T 5 -O /dev/null "http://$1:8080/" >/dev/null 2>&1; }
  open_ip=$(kubectl get pod -n "$B" "srv-$node_type-open" -o jsonpath='{.status.podIP}')
  denied_ip=$(kubectl get pod -n "$B" "srv-$node_type-denied" -o jsonpath='{.status.podIP}')
  if ! reach "$open_ip"; then
    echo "node-type $node_type: control FAILED (cannot reach a pod without policy); result unknown"; failed=1
  elif reach "$denied_ip"; then
    echo "node-type $node_type: NetworkPolicy NOT ENFORCED (reached a pod behind default-deny)"; failed=1
  else
    echo "node-type $node_type: NetworkPolicy enforced"
  fi
done
exit "$failed"
