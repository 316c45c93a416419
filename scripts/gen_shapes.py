#!/usr/bin/env python3
"""Generates the benchmark shapes of docs/PERFORMANCE.md (deterministic, no randomness).

  gen_shapes.py small DIR N          N small manifests, one Deployment or Service per file
  gen_shapes.py copies N             a stream of N copies of the same release on stdout
                                     (every Service selects every copy's pods)
  gen_shapes.py haproxy-services DIR S H
                                     S NodePort Services beside an haproxy.cfg of H servers,
                                     half reaching a Service by cluster DNS name, half by
                                     nodePort (the resolve_target shape)
  gen_shapes.py haproxy-lines N      an haproxy.cfg of about N lines on stdout
  gen_shapes.py same-labels DIR N    N apps in N directories of one namespace, all labelled
                                     `app: web`: each a Deployment in deployment.yaml, a
                                     LoadBalancer Service and a PDB in service.yaml, and an
                                     Ingress in ingress.yaml (every selector matches every
                                     app's pods; the nearest are the directory's)
  gen_shapes.py same-names DIR N     N apps in N directories of one namespace, all named `web`:
                                     a Deployment in deployment.yaml, an HPA, a Service and an
                                     Ingress naming `web` in refs.yaml (every name matches N
                                     objects; the nearest are the directory's)
"""
import os
import subprocess
import sys


def small(dest, n):
    os.makedirs(dest, exist_ok=True)
    for i in range(n):
        name = f"app{i}"
        if i % 2 == 0:
            body = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
  namespace: team{i % 50}
  labels: {{app: {name}, tier: backend}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: {name}}}
  template:
    metadata:
      labels: {{app: {name}, tier: backend}}
    spec:
      containers:
        - name: app
          image: registry.example.com/{name}:1.{i % 9}.0
          ports:
            - {{name: http, containerPort: 8080}}
          readinessProbe:
            httpGet: {{path: /ready, port: http}}
          resources:
            requests: {{cpu: 50m, memory: 64Mi}}
            limits: {{memory: 128Mi}}
          env:
            - {{name: LOG_LEVEL, value: info}}
            - {{name: NAME, value: "{name}"}}
"""
        else:
            prev = f"app{i - 1}"
            body = f"""apiVersion: v1
kind: Service
metadata:
  name: {prev}
  namespace: team{(i - 1) % 50}
  labels: {{app: {prev}}}
spec:
  selector:
    app: {prev}
  ports:
    - name: http
      port: 80
      targetPort: http
      protocol: TCP
"""
        sub = os.path.join(dest, f"d{i // 1000:02d}")
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, f"{name}.yaml"), "w") as f:
            f.write(body)


def copies(n):
    one = subprocess.run(
        [sys.executable, os.path.join(os.path.dirname(__file__), "gen_helm_stream.py"), "1"],
        check=True, capture_output=True, text=True).stdout
    out = sys.stdout
    for _ in range(n):
        out.write(one)


def haproxy_services(dest, services, servers):
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, "services.yaml"), "w") as f:
        for i in range(services):
            f.write(f"""---
apiVersion: v1
kind: Service
metadata:
  name: svc{i}
  namespace: ns{i % 20}
spec:
  type: NodePort
  selector: {{app: svc{i}}}
  ports:
    - {{name: http, port: 80, targetPort: 8080, nodePort: {30000 + i}}}
""")
    with open(os.path.join(dest, "haproxy.cfg"), "w") as f:
        f.write("""global
    maxconn 10000
    hard-stop-after 30s

defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 10s

frontend fe
    bind :80
    default_backend be0
""")
        per = 20
        for b in range((servers + per - 1) // per):
            f.write(f"\nbackend be{b}\n    balance roundrobin\n")
            for j in range(per):
                k = b * per + j
                if k >= servers:
                    break
                i = (k * 2) % services
                if k % 2 == 0:
                    f.write(f"    server s{k} svc{i}.ns{i % 20}.svc.cluster.local:80 check\n")
                else:
                    f.write(f"    server s{k} 10.0.{k % 250}.1:{30000 + i} check\n")


def haproxy_lines(n):
    out = sys.stdout
    out.write("""global
    maxconn 50000
    log stdout format raw local0
    hard-stop-after 30s

defaults
    mode http
    log global
    option httplog
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 10s
""")
    lines = 14
    b = 0
    while lines < n:
        out.write(f"""
frontend fe{b}
    bind :{10000 + b % 50000}
    acl is_ws{b} hdr(Upgrade) -i websocket
    use_backend be{b} if is_ws{b}
    default_backend be{b}

backend be{b}
    balance roundrobin
    option httpchk GET /health HTTP/1.1
    http-request set-header X-Backend be{b}
    timeout server 90s
""")
        lines += 12
        for s in range(8):
            out.write(f"    server s{b}_{s} 10.{b % 250}.{s}.{b % 200 + 1}:8080 check inter 2s fall 3 rise 2 maxconn 100\n")
        lines += 8
        b += 1


def deployment(name, app, probe):
    """A Deployment of `app`-labelled nginx pods, with a readiness probe if `probe`."""
    text = f"""apiVersion: apps/v1
kind: Deployment
metadata: {{name: {name}}}
spec:
  replicas: 2
  selector: {{matchLabels: {{app: {app}}}}}
  template:
    metadata: {{labels: {{app: {app}}}}}
    spec:
      containers:
        - name: web
          image: nginx:1.25
          ports: [{{name: http, containerPort: 8080}}]
"""
    if probe:
        text += "          readinessProbe: {httpGet: {path: /, port: http}}\n"
    return text


def service(name, app, load_balancer):
    """A Service of port `http` selecting `app`."""
    kind = "  type: LoadBalancer\n" if load_balancer else ""
    return f"""apiVersion: v1
kind: Service
metadata: {{name: {name}}}
spec:
{kind}  selector: {{app: {app}}}
  ports: [{{name: http, port: 80, targetPort: http}}]
"""


def ingress(name, host, backend):
    """An Ingress sending `host` to Service `backend`'s port `http`."""
    return f"""apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {{name: {name}}}
spec:
  rules:
    - host: {host}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {{service: {{name: {backend}, port: {{name: http}}}}}}
"""


def write(dest, name, *docs):
    with open(os.path.join(dest, name), "w") as f:
        f.write("---\n".join(docs))


def same_labels(dest, n):
    for i in range(n):
        d = os.path.join(dest, f"app{i:05d}")
        os.makedirs(d, exist_ok=True)
        write(d, "deployment.yaml", deployment(f"app{i}", "web", probe=True))
        write(d, "service.yaml", service(f"app{i}", "web", load_balancer=True), f"""apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: app{i}}}
spec:
  minAvailable: 1
  selector: {{matchLabels: {{app: web}}}}
""")
        write(d, "ingress.yaml", ingress(f"app{i}", f"app{i}.example.com", f"app{i}"))


def same_names(dest, n):
    for i in range(n):
        d = os.path.join(dest, f"app{i:05d}")
        os.makedirs(d, exist_ok=True)
        write(d, "deployment.yaml", deployment("web", f"web{i}", probe=False))
        write(d, "refs.yaml", """apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 5
""", service("web", f"web{i}", load_balancer=False), ingress("web", f"app{i}.example.com", "web"))


def main():
    cmd = sys.argv[1]
    if cmd == "small":
        small(sys.argv[2], int(sys.argv[3]))
    elif cmd == "copies":
        copies(int(sys.argv[2]))
    elif cmd == "haproxy-services":
        haproxy_services(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "haproxy-lines":
        haproxy_lines(int(sys.argv[2]))
    elif cmd == "same-labels":
        same_labels(sys.argv[2], int(sys.argv[3]))
    elif cmd == "same-names":
        same_names(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
