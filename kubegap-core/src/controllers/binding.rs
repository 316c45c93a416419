//! Binding: which controllers the input runs ([`find_controllers`]) and which product serves
//! each Ingress ([`bind_ingress`]: class, IngressClass, annotations).

use std::collections::HashMap;

use super::args::{namespaced, read_args};
use super::catalog::image_version;
use super::{
    controller_settings, ingress_controller_settings, Controller, ControllerSettings, Product,
    Reader,
};
use crate::k8s::ObjId;
use crate::source::Span;

/// How a route was bound to a product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// An IngressClass in the input whose `spec.controller` names the product.
    IngressClass(ObjId),
    /// A controller in the input whose `--ingress-class` (span, when written) or product default
    /// class (`nginx`, `haproxy`) is the route's class.
    Controller(Option<Span>),
    /// A class name only one product uses (`alb`, `gce`).
    ClassName,
    /// An OpenShift Route.
    Route,
    /// Guessed from the route's own annotations (no class resolution in the input).
    Annotations,
}

/// Which product serves a route, and how kubegap knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// The product.
    pub product: Product,
    /// How it was found.
    pub via: Via,
}

impl Binding {
    /// Whether the binding is known from the input rather than guessed from annotations.
    pub fn confident(&self) -> bool {
        self.via != Via::Annotations
    }
}

pub(super) fn find_controllers(reader: &Reader<'_>) -> Vec<Controller> {
    use rayon::prelude::*;
    let graph = reader.graph;
    // Every container's image is looked at, and every object's kind: in parallel (3 ms on one
    // thread for the 51 MB stream's 90,000 objects), collected in workload, container and
    // object order.
    let mut out: Vec<Controller> = graph
        .workloads
        .par_iter()
        .flat_map_iter(|workload| {
            workload
                .containers
                .iter()
                .enumerate()
                .filter_map(move |(index, container)| {
                    container_controller(reader, workload, index, container)
                })
        })
        .collect();
    let operators: Vec<Controller> = graph
        .objects
        .par_iter()
        .enumerate()
        .filter(|(_, object)| {
            object.kind == "IngressController"
                && object.api_version.starts_with("operator.openshift")
        })
        .map(|(obj, _)| {
            let mut controller = Controller {
                product: Product::OpenShift,
                obj,
                container: None,
                image: None,
                version: None,
                args: Vec::new(),
                config_map: None,
                config_map_arg: None,
                ingress_class: None,
                controller_class: None,
                watch_namespace: None,
                settings: ControllerSettings::default(),
            };
            controller.settings = ingress_controller_settings(reader, obj);
            controller
        })
        .collect();
    out.extend(operators);
    out
}

/// The ingress controller that container `index` of `workload` runs, if its image is one.
fn container_controller(
    reader: &Reader<'_>,
    workload: &crate::k8s::Workload,
    index: usize,
    container: &crate::k8s::Container,
) -> Option<Controller> {
    let graph = reader.graph;
    if container.init {
        return None;
    }
    let image = container.image.as_deref()?;
    let product = Product::of_image(image)?;
    let node = reader.node(container.at);
    let args = read_args(node);
    let ns = graph.objects[workload.obj].namespace.clone();
    let find = |name: &str| args.iter().find(|a| a.name == name).cloned();
    let config_map_arg = find("configmap");
    let config_map = config_map_arg.as_ref().and_then(|a| {
        let (cns, cname) = namespaced(a.value.as_deref()?, &ns);
        graph.find("ConfigMap", &cns, &cname).first().copied()
    });
    let value = |name: &str| find(name).and_then(|a| a.value);
    let mut controller = Controller {
        product,
        obj: workload.obj,
        container: Some(index),
        image: node.get("image").map(|n| n.span()),
        version: image_version(image),
        ingress_class: value("ingress-class").or_else(|| value("ingress.class")),
        controller_class: value("controller-class"),
        watch_namespace: value("watch-namespace").filter(|v| !v.is_empty()),
        args,
        config_map,
        config_map_arg,
        settings: ControllerSettings::default(),
    };
    controller.settings = controller_settings(reader, &controller, node);
    Some(controller)
}

/// The input's IngressClasses as [`bind_ingress`] reads them, found once for all Ingresses:
/// each Ingress went over every IngressClass for its class's name and for the default class,
/// so N Ingresses beside N IngressClasses (copies of a release in one stream) were N².
pub(super) struct IngressClasses<'g> {
    /// The name of the first IngressClass marked as the cluster default.
    default: Option<&'g str>,
    /// Each name's first IngressClass whose controller is a known product (its object,
    /// controller name and product), or `None` when no class of that name has one.
    by_name: HashMap<&'g str, Option<(ObjId, &'g str, Product)>>,
}

impl<'g> IngressClasses<'g> {
    /// The IngressClasses of `reader`'s graph, in object order.
    pub(super) fn new(reader: &Reader<'g>) -> IngressClasses<'g> {
        let graph = reader.graph;
        let mut default = None;
        let mut by_name: HashMap<&'g str, Option<(ObjId, &'g str, Product)>> = HashMap::new();
        for (class_obj, controller_name) in &graph.ingress_classes {
            let name = graph.objects[*class_obj].name.as_str();
            if default.is_none()
                && reader
                    .annotation(*class_obj, "ingressclass.kubernetes.io/is-default-class")
                    .and_then(|(_, v)| v.as_str())
                    == Some("true")
            {
                default = Some(name);
            }
            let first = by_name.entry(name).or_insert(None);
            if first.is_none() {
                *first = controller_name.as_deref().and_then(|controller| {
                    Product::of_controller_name(controller).map(|p| (*class_obj, controller, p))
                });
            }
        }
        IngressClasses { default, by_name }
    }
}

/// The product that serves an Ingress, and the controller in the input that does, if any.
pub(super) fn bind_ingress(
    reader: &Reader<'_>,
    controllers: &[Controller],
    classes: &IngressClasses<'_>,
    obj: ObjId,
) -> (Option<Binding>, Option<usize>) {
    let graph = reader.graph;
    // The Ingress's class, else the IngressClass marked as the cluster default.
    let class = reader
        .ingress(obj)
        .and_then(|i| i.class.clone())
        .or_else(|| classes.default.map(str::to_string));
    let ns = graph.objects[obj].namespace.as_str();
    let watches = |c: &Controller| c.watch_namespace.as_deref().is_none_or(|w| w == ns);
    if let Some(class) = class.as_deref() {
        // 1. An IngressClass in the input: the first of this name whose controller is a
        // known product.
        if let Some(&Some((class_obj, controller_name, product))) = classes.by_name.get(class) {
            let controller_name = Some(controller_name);
            let controller = controllers.iter().position(|c| {
                c.product == product
                    && watches(c)
                    && match (c.controller_class.as_deref(), controller_name) {
                        // haproxytech takes the suffix of `haproxy.org/ingress-controller/<cc>`.
                        (Some(cc), Some(name)) => name == cc || name.ends_with(&format!("/{cc}")),
                        _ => c.ingress_class.as_deref().is_none_or(|ic| ic == class),
                    }
            });
            return (
                Some(Binding {
                    product,
                    via: Via::IngressClass(class_obj),
                }),
                controller,
            );
        }
        // 2. A controller whose --ingress-class (or its product's default class) is this one.
        let serving = |c: &Controller| c.class_name() == Some(class) && watches(c);
        let first = controllers.iter().position(serving);
        // Two products claiming the same class (say, both NGINX controllers on `nginx`): unknown.
        let ambiguous = first.is_some_and(|i| {
            controllers
                .iter()
                .any(|c| serving(c) && c.product != controllers[i].product)
        });
        if let Some(i) = first.filter(|_| !ambiguous) {
            let span = controllers[i]
                .arg("ingress-class")
                .or_else(|| controllers[i].arg("ingress.class"))
                .map(|a| a.span);
            return (
                Some(Binding {
                    product: controllers[i].product,
                    via: Via::Controller(span),
                }),
                Some(i),
            );
        }
        // 3. A class name only one product uses.
        if let Some(product) = Product::of_class_name(class) {
            let controller = controllers.iter().position(|c| c.product == product);
            return (
                Some(Binding {
                    product,
                    via: Via::ClassName,
                }),
                controller,
            );
        }
        // 3b. `nginx` with no IngressClass of that name in the input and no other product's
        // controller claiming it is ingress-nginx: the class its Helm chart installs and
        // `kubectl create ingress --class=nginx` names. Unless the Ingress's own annotations
        // are all NGINX Inc's (`nginx.org/*`), whose controller also defaults to `nginx`.
        let class_object = classes.by_name.contains_key(class);
        let other_nginx = {
            let products: Vec<Product> = reader
                .annotations(obj)
                .iter()
                .filter_map(|(k, _)| k.as_str().and_then(Product::of_annotation))
                .collect();
            products.contains(&Product::NginxInc) && !products.contains(&Product::IngressNginx)
        };
        if class == "nginx" && !class_object && !ambiguous && !other_nginx {
            let controller = controllers
                .iter()
                .position(|c| c.product == Product::IngressNginx && watches(c));
            return (
                Some(Binding {
                    product: Product::IngressNginx,
                    via: Via::ClassName,
                }),
                controller,
            );
        }
    }
    // 4. Guess from the Ingress's own annotations: a single controller prefix.
    let mut products: Vec<Product> = reader
        .annotations(obj)
        .iter()
        .filter_map(|(k, _)| k.as_str().and_then(Product::of_annotation))
        .filter(|p| *p != Product::OpenShift)
        .collect();
    products.sort();
    products.dedup();
    // A class named for another kind of proxy (`traefik`, `kong`) is not guessed at.
    let plausible = |p: Product| {
        class.as_deref().is_none_or(|c| {
            let c = c.to_ascii_lowercase();
            p.spec()
                .class_family
                .is_some_and(|family| c.contains(family))
        })
    };
    if let [product] = products[..] {
        if !plausible(product) {
            return (None, None);
        }
        // Only when no controller in the input claims another class for it.
        let controller = controllers
            .iter()
            .position(|c| c.product == product && watches(c));
        return (
            Some(Binding {
                product,
                via: Via::Annotations,
            }),
            controller.filter(|_| class.is_none()),
        );
    }
    (None, None)
}
