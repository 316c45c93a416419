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
  gen_shapes.py kubectl-dump N [definition]
                                     `kubectl get deploy,svc,ingress,hpa -A -o yaml` of N apps
                                     on stdout: one `List`, every object as the API server
                                     returns it (defaults filled in, `managedFields`, the
                                     last-applied annotation, `status`); with `definition`,
                                     one CustomResourceDefinition first among them (as a
                                     dump of every resource has)
  gen_shapes.py definitions N        `kubectl get crd -o yaml` of N small definitions on stdout:
                                     one `List` whose every item's spec the parser skips
  gen_shapes.py release-copies N [app] [distinct] [slow|gce|ping]
                                     a stream of N copies of one release of every kind the graph
                                     links (a Deployment, a LoadBalancer Service, an Ingress, a
                                     PDB, an HPA, a Route, a ConfigMap, an IngressClass), all
                                     named alike in one namespace, on stdout: every Service
                                     selects every copy's Deployment, every Ingress and Route
                                     names every copy's Service; with `app`, each copy's app
                                     keep-alive is known (gunicorn `--keep-alive`), so each
                                     copy's chains differ but for where they are written; with
                                     `distinct`, copy i is named `web{i}` and keeps the label
                                     `app: web` (every Service selects N different Deployments);
                                     with `slow`, each Ingress waits 300s behind an ingress-nginx
                                     controller (added once) whose NLB gives up after 60s (a
                                     request-timeout inversion on every route); with `gce`, the
                                     Ingresses are GKE's (a GCP load balancer in front of each app);
                                     with `ping`, each Ingress declares a 45s ping interval above
                                     its 30s read timeout (an idle-budget finding on every route)
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


def kubectl_dump(n, definition=False):
    """As `kubectl get deploy,svc,ingress,hpa -A -o yaml` prints them (kubectl 1.30 against a
    1.30 API server): items not indented under `items:`, every default written out, two field
    managers per object (client-side apply, then the controller's status updates). With
    `definition`, a CustomResourceDefinition of 100 fields (about 520 lines) comes first."""
    out = sys.stdout
    out.write("apiVersion: v1\nitems:\n")
    if definition:
        out.write(
            "- apiVersion: apiextensions.k8s.io/v1\n"
            "  kind: CustomResourceDefinition\n"
            "  metadata:\n    name: widgets.example.com\n"
            "  spec:\n    group: example.com\n"
            "    names:\n      kind: Widget\n      listKind: WidgetList\n"
            "      plural: widgets\n      singular: widget\n"
            "    scope: Namespaced\n    versions:\n    - name: v1\n"
            "      schema:\n        openAPIV3Schema:\n          properties:\n"
            "            spec:\n              properties:\n"
        )
        for i in range(100):
            out.write(
                f"                field{i}:\n"
                f"                  description: Field {i} of the widget, as its controller reads it.\n"
                "                  maxLength: 253\n"
                "                  pattern: ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$\n"
                "                  type: string\n"
            )
        out.write(
            "              type: object\n          type: object\n"
            "      served: true\n      storage: true\n"
            "  status:\n    acceptedNames:\n      kind: Widget\n      plural: widgets\n"
            "    storedVersions:\n    - v1\n"
        )

    def item(text):
        lines = text.strip("\n").split("\n")
        out.write("- " + lines[0] + "\n")
        for line in lines[1:]:
            out.write(("  " + line) if line else "")
            out.write("\n")

    def manager(name, t, status=False):
        """The end of a managedFields entry: who wrote it, and when."""
        sub = "    subresource: status\n" if status else ""
        return f'    manager: {name}\n    operation: Update\n{sub}    time: "{t}"'

    def identity(app, ns, rv, uid):
        """The end of an object's metadata."""
        return f'  name: {app}\n  namespace: {ns}\n  resourceVersion: "{rv}"\n  uid: {uid}'

    def condition_fields(kind, indent, updated=True):
        """A condition's entry in a managedFields field set."""
        pad = " " * indent
        update = f"{pad}  f:lastUpdateTime: {{}}\n" if updated else ""
        return (
            f'{pad}k:{{"type":"{kind}"}}:\n{pad}  .: {{}}\n{pad}  f:lastTransitionTime: {{}}\n'
            f"{update}{pad}  f:message: {{}}\n{pad}  f:reason: {{}}\n{pad}  f:status: {{}}\n"
            f"{pad}  f:type: {{}}"
        )

    for i in range(n):
        app, ns = f"app{i}", f"team{i % 40}"
        uid = f"{i:08x}-5f1c-4a7e-9d2b-{i * 7919 % 10**12:012d}"
        rv = 100000 + i * 4
        t = f"2026-10-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}Z"
        applied = (
            '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"annotations":{},'
            f'"labels":{{"app":"{app}"}},"name":"{app}","namespace":"{ns}"}},"spec":{{"replicas":2,'
            f'"selector":{{"matchLabels":{{"app":"{app}"}}}},"template":{{"metadata":{{"labels":'
            f'{{"app":"{app}"}}}},"spec":{{"containers":[{{"image":"registry.example.com/{app}:1.4.{i % 9}",'
            '"name":"app","ports":[{"containerPort":8080,"name":"http"}],"readinessProbe":'
            '{"httpGet":{"path":"/ready","port":"http"}}}]}}}}'
        )
        item(f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    deployment.kubernetes.io/revision: "3"
    kubectl.kubernetes.io/last-applied-configuration: |
      {applied}
  creationTimestamp: "{t}"
  generation: 3
  labels:
    app: {app}
  managedFields:
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {{}}
          f:kubectl.kubernetes.io/last-applied-configuration: {{}}
        f:labels:
          .: {{}}
          f:app: {{}}
      f:spec:
        f:progressDeadlineSeconds: {{}}
        f:replicas: {{}}
        f:revisionHistoryLimit: {{}}
        f:selector: {{}}
        f:strategy:
          f:rollingUpdate:
            .: {{}}
            f:maxSurge: {{}}
            f:maxUnavailable: {{}}
          f:type: {{}}
        f:template:
          f:metadata:
            f:labels:
              .: {{}}
              f:app: {{}}
          f:spec:
            f:containers:
              k:{{"name":"app"}}:
                .: {{}}
                f:image: {{}}
                f:imagePullPolicy: {{}}
                f:name: {{}}
                f:ports:
                  .: {{}}
                  k:{{"containerPort":8080,"protocol":"TCP"}}:
                    .: {{}}
                    f:containerPort: {{}}
                    f:name: {{}}
                    f:protocol: {{}}
                f:readinessProbe:
                  .: {{}}
                  f:failureThreshold: {{}}
                  f:httpGet:
                    .: {{}}
                    f:path: {{}}
                    f:port: {{}}
                    f:scheme: {{}}
                  f:periodSeconds: {{}}
                  f:successThreshold: {{}}
                  f:timeoutSeconds: {{}}
                f:resources: {{}}
                f:terminationMessagePath: {{}}
                f:terminationMessagePolicy: {{}}
            f:dnsPolicy: {{}}
            f:restartPolicy: {{}}
            f:schedulerName: {{}}
            f:securityContext: {{}}
            f:terminationGracePeriodSeconds: {{}}
{manager("kubectl-client-side-apply", t)}
  - apiVersion: apps/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          f:deployment.kubernetes.io/revision: {{}}
      f:status:
        f:availableReplicas: {{}}
        f:conditions:
          .: {{}}
{condition_fields("Available", 10)}
{condition_fields("Progressing", 10)}
        f:observedGeneration: {{}}
        f:readyReplicas: {{}}
        f:replicas: {{}}
        f:updatedReplicas: {{}}
{manager("kube-controller-manager", t, status=True)}
{identity(app, ns, rv, uid)}
spec:
  progressDeadlineSeconds: 600
  replicas: 2
  revisionHistoryLimit: 10
  selector:
    matchLabels:
      app: {app}
  strategy:
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 25%
    type: RollingUpdate
  template:
    metadata:
      creationTimestamp: null
      labels:
        app: {app}
    spec:
      containers:
      - image: registry.example.com/{app}:1.4.{i % 9}
        imagePullPolicy: IfNotPresent
        name: app
        ports:
        - containerPort: 8080
          name: http
          protocol: TCP
        readinessProbe:
          failureThreshold: 3
          httpGet:
            path: /ready
            port: http
            scheme: HTTP
          periodSeconds: 10
          successThreshold: 1
          timeoutSeconds: 1
        resources: {{}}
        terminationMessagePath: /dev/termination-log
        terminationMessagePolicy: File
      dnsPolicy: ClusterFirst
      restartPolicy: Always
      schedulerName: default-scheduler
      securityContext: {{}}
      terminationGracePeriodSeconds: 30
status:
  availableReplicas: 2
  conditions:
  - lastTransitionTime: "{t}"
    lastUpdateTime: "{t}"
    message: Deployment has minimum availability.
    reason: MinimumReplicasAvailable
    status: "True"
    type: Available
  - lastTransitionTime: "{t}"
    lastUpdateTime: "{t}"
    message: ReplicaSet "{app}-6d5f8c7b9" has successfully progressed.
    reason: NewReplicaSetAvailable
    status: "True"
    type: Progressing
  observedGeneration: 3
  readyReplicas: 2
  replicas: 2
  updatedReplicas: 2
""")
        item(f"""
apiVersion: v1
kind: Service
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {{"apiVersion":"v1","kind":"Service","metadata":{{"annotations":{{}},"name":"{app}","namespace":"{ns}"}},"spec":{{"ports":[{{"name":"http","port":80,"targetPort":"http"}}],"selector":{{"app":"{app}"}}}}}}
  creationTimestamp: "{t}"
  managedFields:
  - apiVersion: v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {{}}
          f:kubectl.kubernetes.io/last-applied-configuration: {{}}
      f:spec:
        f:internalTrafficPolicy: {{}}
        f:ports:
          .: {{}}
          k:{{"port":80,"protocol":"TCP"}}:
            .: {{}}
            f:name: {{}}
            f:port: {{}}
            f:protocol: {{}}
            f:targetPort: {{}}
        f:selector: {{}}
        f:sessionAffinity: {{}}
        f:type: {{}}
{manager("kubectl-client-side-apply", t)}
{identity(app, ns, rv + 1, uid[:-4] + "0001")}
spec:
  clusterIP: 10.96.{i // 250 % 256}.{i % 250 + 2}
  clusterIPs:
  - 10.96.{i // 250 % 256}.{i % 250 + 2}
  internalTrafficPolicy: Cluster
  ipFamilies:
  - IPv4
  ipFamilyPolicy: SingleStack
  ports:
  - name: http
    port: 80
    protocol: TCP
    targetPort: http
  selector:
    app: {app}
  sessionAffinity: None
  type: ClusterIP
status:
  loadBalancer: {{}}
""")
        item(f"""
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  annotations:
    nginx.ingress.kubernetes.io/proxy-read-timeout: "3600"
  creationTimestamp: "{t}"
  generation: 1
  managedFields:
  - apiVersion: networking.k8s.io/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:metadata:
        f:annotations:
          .: {{}}
          f:nginx.ingress.kubernetes.io/proxy-read-timeout: {{}}
      f:spec:
        f:ingressClassName: {{}}
        f:rules: {{}}
{manager("kubectl-client-side-apply", t)}
  - apiVersion: networking.k8s.io/v1
    fieldsType: FieldsV1
    fieldsV1:
      f:status:
        f:loadBalancer:
          f:ingress: {{}}
{manager("nginx-ingress-controller", t, status=True)}
{identity(app, ns, rv + 2, uid[:-4] + "0002")}
spec:
  ingressClassName: nginx
  rules:
  - host: {app}.example.com
    http:
      paths:
      - backend:
          service:
            name: {app}
            port:
              name: http
        path: /
        pathType: Prefix
status:
  loadBalancer:
    ingress:
    - ip: 203.0.113.{i % 250 + 1}
""")
        item(f"""
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  creationTimestamp: "{t}"
  managedFields:
  - apiVersion: autoscaling/v2
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:maxReplicas: {{}}
        f:metrics: {{}}
        f:minReplicas: {{}}
        f:scaleTargetRef: {{}}
{manager("kubectl-client-side-apply", t)}
  - apiVersion: autoscaling/v2
    fieldsType: FieldsV1
    fieldsV1:
      f:status:
        f:conditions:
          .: {{}}
{condition_fields("AbleToScale", 10, updated=False)}
        f:currentMetrics: {{}}
        f:currentReplicas: {{}}
        f:desiredReplicas: {{}}
{manager("kube-controller-manager", t, status=True)}
{identity(app, ns, rv + 3, uid[:-4] + "0003")}
spec:
  maxReplicas: 6
  metrics:
  - resource:
      name: cpu
      target:
        averageUtilization: 70
        type: Utilization
    type: Resource
  minReplicas: 2
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {app}
status:
  conditions:
  - lastTransitionTime: "{t}"
    message: recommended size matches current size
    reason: ReadyForNewScale
    status: "True"
    type: AbleToScale
  currentMetrics:
  - resource:
      current:
        averageUtilization: 12
        averageValue: 6m
      name: cpu
    type: Resource
  currentReplicas: 2
  desiredReplicas: 2
""")
    out.write('kind: List\nmetadata:\n  resourceVersion: ""\n')


def definitions(n):
    """One `List` of N small CustomResourceDefinitions: each item's spec is skipped as it is
    read, and the document's end looks every skipped spec up (quadratic once, in 3507648)."""
    out = sys.stdout
    out.write("apiVersion: v1\nitems:\n")
    for i in range(n):
        out.write(
            "- apiVersion: apiextensions.k8s.io/v1\n"
            "  kind: CustomResourceDefinition\n"
            f"  metadata: {{name: c{i}.example.com}}\n"
            "  spec:\n    group: example.com\n    scope: Namespaced\n"
        )
    out.write('kind: List\nmetadata:\n  resourceVersion: ""\n')

RELEASE = """apiVersion: v1
kind: ConfigMap
metadata: {name: web-config, namespace: shop}
data: {nginx.conf: "keepalive_timeout 30s;"}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          IMAGE
          ports: [{name: http, containerPort: 8080}]
          readinessProbe: {httpGet: {path: /, port: http}}
          envFrom: [{configMapRef: {name: web-config}}]
          volumeMounts: [{name: conf, mountPath: /etc/nginx}]
      volumes: [{name: conf, configMap: {name: web-config}}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop, annotations: {service.beta.kubernetes.io/aws-load-balancer-type: nlb}}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: http}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web, namespace: shop, annotations: {nginx.ingress.kubernetes.io/proxy-read-timeout: "30"}}
spec:
  ingressClassName: nginx
  rules: [{host: a.example, http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {name: http}}}}]}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: shop}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 5}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata: {name: web, namespace: shop}
spec: {to: {kind: Service, name: web}, port: {targetPort: http}}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
"""


CONTROLLER_BEHIND_NLB = """apiVersion: apps/v1
kind: Deployment
metadata: {name: ingress-nginx-controller, namespace: ingress-nginx}
spec:
  template:
    metadata: {labels: {app: ingress-nginx}}
    spec:
      containers: [{name: controller, image: "registry.k8s.io/ingress-nginx/controller:v1.10.0"}]
---
apiVersion: v1
kind: Service
metadata:
  name: ingress-nginx-controller
  namespace: ingress-nginx
  annotations:
    service.beta.kubernetes.io/aws-load-balancer-connection-idle-timeout: "60"
spec: {type: LoadBalancer, selector: {app: ingress-nginx}, ports: [{port: 80}]}
"""


def release_copies(n, app, distinct, variant=None):
    image = ("image: python:3.12\n          command: [gunicorn, --keep-alive, \"5\", app:app]"
             if app else "image: nginx:1.25")
    one = RELEASE.replace("IMAGE", image)
    if variant == "slow":
        one = one.replace('proxy-read-timeout: "30"', 'proxy-read-timeout: "300"')
    elif variant == "gce":
        one = one.replace("ingressClassName: nginx", "ingressClassName: gce")
    elif variant == "ping":
        one = one.replace('proxy-read-timeout: "30"}',
                          'proxy-read-timeout: "30", kubegap.io/ping-interval: 45s}')
    out = sys.stdout
    for i in range(n):
        out.write(one.replace("name: web", f"name: web{i}") if distinct else one)
    if variant == "slow":
        out.write(CONTROLLER_BEHIND_NLB)


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
    elif cmd == "kubectl-dump":
        kubectl_dump(int(sys.argv[2]), sys.argv[3:] == ["definition"])
    elif cmd == "definitions":
        definitions(int(sys.argv[2]))
    elif cmd == "release-copies":
        rest = sys.argv[3:]
        variant = next((v for v in ("slow", "gce", "ping") if v in rest), None)
        release_copies(int(sys.argv[2]), "app" in rest, "distinct" in rest, variant)
    elif cmd == "same-names":
        same_names(sys.argv[2], int(sys.argv[3]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
