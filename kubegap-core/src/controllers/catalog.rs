//! The product catalog: which ingress controllers and routers kubegap knows, how each is
//! recognised (annotation prefix, controller name, image, class name), and image versions.

use crate::config::Version;

/// A product whose defaults and annotations kubegap knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Product {
    /// kubernetes/ingress-nginx (`nginx.ingress.kubernetes.io/*`).
    IngressNginx,
    /// F5 NGINX Ingress Controller (`nginx.org/*`).
    NginxInc,
    /// HAProxy Kubernetes Ingress Controller by HAProxy Technologies (`haproxy.org/*`).
    HaproxyTech,
    /// jcmoraisjr/haproxy-ingress (`haproxy-ingress.github.io/*`).
    HaproxyIngress,
    /// The OpenShift router (`haproxy.router.openshift.io/*`).
    OpenShift,
    /// AWS Load Balancer Controller (`alb.ingress.kubernetes.io/*`).
    AwsAlb,
    /// GKE Ingress (GCP external Application Load Balancer).
    Gke,
}

impl Product {
    /// The name used in messages.
    pub fn name(self) -> &'static str {
        match self {
            Product::IngressNginx => "ingress-nginx",
            Product::NginxInc => "F5 NGINX Ingress Controller",
            Product::HaproxyTech => "HAProxy Kubernetes Ingress Controller",
            Product::HaproxyIngress => "haproxy-ingress",
            Product::OpenShift => "OpenShift router",
            Product::AwsAlb => "AWS Load Balancer Controller",
            Product::Gke => "GKE Ingress",
        }
    }

    /// Annotation prefixes this product reads on Ingresses (or Routes).
    pub fn annotation_prefixes(self) -> &'static [&'static str] {
        match self {
            Product::IngressNginx => &["nginx.ingress.kubernetes.io/"],
            Product::NginxInc => &["nginx.org/", "nginx.com/"],
            Product::HaproxyTech => &["haproxy.org/"],
            Product::HaproxyIngress => &["haproxy-ingress.github.io/"],
            Product::OpenShift => &["haproxy.router.openshift.io/", "router.openshift.io/"],
            Product::AwsAlb => &["alb.ingress.kubernetes.io/"],
            Product::Gke => &[],
        }
    }

    /// Every product, for lookups.
    pub const ALL: [Product; 7] = [
        Product::IngressNginx,
        Product::NginxInc,
        Product::HaproxyTech,
        Product::HaproxyIngress,
        Product::OpenShift,
        Product::AwsAlb,
        Product::Gke,
    ];

    /// The product whose prefix an annotation key has.
    pub fn of_annotation(key: &str) -> Option<Product> {
        Product::ALL.into_iter().find(|p| {
            p.annotation_prefixes()
                .iter()
                .any(|prefix| key.starts_with(prefix))
        })
    }

    /// The product of an IngressClass `spec.controller`.
    pub fn of_controller_name(controller: &str) -> Option<Product> {
        match controller {
            "k8s.io/ingress-nginx" => Some(Product::IngressNginx),
            "nginx.org/ingress-controller" => Some(Product::NginxInc),
            "haproxy-ingress.github.io/controller" => Some(Product::HaproxyIngress),
            "openshift.io/ingress-to-route" => Some(Product::OpenShift),
            "ingress.k8s.aws/alb" => Some(Product::AwsAlb),
            c if c.starts_with("haproxy.org/ingress-controller") => Some(Product::HaproxyTech),
            c if c.starts_with("k8s.io/ingress-nginx") => Some(Product::IngressNginx),
            _ => None,
        }
    }

    /// The product of a controller image (`registry.k8s.io/ingress-nginx/controller:v1.15.1`).
    pub fn of_image(image: &str) -> Option<Product> {
        let repo = image_repository(image);
        if repo.ends_with("ingress-nginx/controller")
            || repo.ends_with("ingress-nginx/controller-chroot")
            || repo.ends_with("kubernetes-ingress-controller/nginx-ingress-controller")
        {
            Some(Product::IngressNginx)
        } else if repo.ends_with("nginx/nginx-ingress") || repo.contains("nginx-plus-ingress") {
            Some(Product::NginxInc)
        } else if repo.ends_with("haproxytech/kubernetes-ingress") {
            Some(Product::HaproxyTech)
        } else if repo.ends_with("jcmoraisjr/haproxy-ingress") {
            Some(Product::HaproxyIngress)
        } else if repo.ends_with("haproxy-router") {
            Some(Product::OpenShift)
        } else if repo.ends_with("aws-load-balancer-controller") {
            Some(Product::AwsAlb)
        } else {
            None
        }
    }

    /// Well-known class names that name one product only (`alb`, `gce`, `openshift-default`).
    /// `nginx` and `haproxy` are shared by several products and resolve through an
    /// IngressClass or a controller in the input; without either, `nginx` is ingress-nginx
    /// (see `bind_ingress`).
    pub fn of_class_name(class: &str) -> Option<Product> {
        match class {
            "alb" => Some(Product::AwsAlb),
            "gce" | "gce-internal" => Some(Product::Gke),
            "openshift-default" => Some(Product::OpenShift),
            _ => None,
        }
    }
}

/// The repository part of an image reference (no tag, no digest).
pub fn image_repository(image: &str) -> &str {
    let image = image.split('@').next().unwrap_or(image);
    match image.rfind(':') {
        Some(colon) if !image[colon..].contains('/') => &image[..colon],
        _ => image,
    }
}

/// The version in an image tag (`…:v1.15.1@sha256:…` → 1.15.1), if it has one.
pub fn image_version(image: &str) -> Option<Version> {
    let image = image.split('@').next().unwrap_or(image);
    let colon = image.rfind(':')?;
    let tag = &image[colon + 1..];
    if tag.contains('/') {
        return None;
    }
    Version::parse(tag)
}
