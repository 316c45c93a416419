#!/usr/bin/env python3
"""Writes a deterministic `helm template`-style stream of N releases (15000 ≈ 51 MB) to stdout.

Each release: ServiceAccount, ConfigMap (with an nginx.conf block scalar), Service, Deployment,
Ingress, HPA, each preceded by `---` and `# Source:`. Mirrors the stream CRATES.md measured.
"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 15000
out = sys.stdout
for i in range(n):
    name = f"rel{i}"
    out.write(f"""---
# Source: {name}/templates/serviceaccount.yaml
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}, app.kubernetes.io/instance: prod}}
---
# Source: {name}/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}-conf
data:
  nginx.conf: |
    worker_processes auto;
    events {{ worker_connections 1024; }}
    http {{
      upstream app {{ server 127.0.0.1:8080; keepalive 16; }}
      server {{ listen 80; location / {{ proxy_pass http://app; proxy_http_version 1.1; }} }}
    }}
  application.yaml: >
    server.port=8080 server.tomcat.keep-alive-timeout=65s
    café ünïcode 日本語
---
# Source: {name}/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: {name}
  labels: {{app.kubernetes.io/name: {name}}}
spec:
  type: ClusterIP
  selector:
    app.kubernetes.io/name: {name}
  ports:
    - name: http
      port: 80
      targetPort: http
---
# Source: {name}/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: 2
  selector:
    matchLabels: {{app.kubernetes.io/name: {name}}}
  template:
    metadata:
      labels:
        app.kubernetes.io/name: {name}
        app.kubernetes.io/instance: prod
    spec:
      terminationGracePeriodSeconds: 30
      initContainers:
        - name: init
          image: busybox:1.36
          command: ["sh", "-c", "echo init"]
      containers:
        - name: app
          image: "registry.example.com/{name}:1.{i % 7}.0"
          args: ["--port=8080", "--log-level=info"]
          ports:
            - {{name: http, containerPort: 8080, protocol: TCP}}
            - {{name: metrics, containerPort: 9090, protocol: TCP}}
          env:
            - {{name: APP_NAME, value: "{name}"}}
            - {{name: POD_IP, valueFrom: {{fieldRef: {{fieldPath: status.podIP}}}}}}
            - {{name: DB_PASSWORD, valueFrom: {{secretKeyRef: {{name: {name}-db, key: password}}}}}}
          readinessProbe:
            httpGet: {{path: /ready, port: http}}
            periodSeconds: 5
          livenessProbe:
            httpGet: {{path: /live, port: http}}
            initialDelaySeconds: 10
          resources:
            requests: {{cpu: 100m, memory: 128Mi}}
            limits: {{memory: 256Mi}}
          lifecycle:
            preStop: {{exec: {{command: [sleep, "10"]}}}}
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
            - weight: 100
              podAffinityTerm:
                topologyKey: kubernetes.io/hostname
                labelSelector: {{matchLabels: {{app.kubernetes.io/name: {name}}}}}
---
# Source: {name}/templates/ingress.yaml
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {name}
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "60"
    nginx.ingress.kubernetes.io/configuration-snippet: |
      more_set_headers "X-Release: {name}";
spec:
  ingressClassName: nginx
  rules:
    - host: {name}.example.com
      http:
        paths:
          - path: /
            pathType: Prefix
            backend: {{service: {{name: {name}, port: {{name: http}}}}}}
---
# Source: {name}/templates/hpa.yaml
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {name}
spec:
  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: {name}}}
  minReplicas: 2
  maxReplicas: 10
""")
