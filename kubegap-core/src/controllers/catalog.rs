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

/// What kubegap knows about one product: how to recognise it and how to read its settings.
/// Each product's file in `controllers/` defines one `SPEC`; [`Product::spec`] is the one match
/// over the variants, and every other question about a product reads its spec.
pub struct Spec {
    /// The name used in messages.
    pub name: &'static str,
    /// Annotation prefixes it reads on Ingresses (or Routes).
    pub annotation_prefixes: &'static [&'static str],
    /// IngressClass `spec.controller` values that name it exactly.
    pub controller_names: &'static [&'static str],
    /// IngressClass `spec.controller` prefixes that name it.
    pub controller_name_prefixes: &'static [&'static str],
    /// Image repositories (suffixes) that run it.
    pub image_suffixes: &'static [&'static str],
    /// Substrings of image repositories that run it.
    pub image_contains: &'static [&'static str],
    /// Class names only this product uses (`alb`, `gce`).
    pub class_names: &'static [&'static str],
    /// The class a controller of it serves without `--ingress-class`.
    pub default_class: Option<&'static str>,
    /// A word a class name must contain for an Ingress with only this product's annotations to
    /// be bound to it (`nginx`, `haproxy`); `None`: never guessed from annotations alone.
    pub class_family: Option<&'static str>,
    /// Controller-wide settings of a controller of it in the input (ConfigMap, env, defaults).
    pub controller_settings: Option<super::ControllerSettingsFn>,
    /// The settings an Ingress it serves gets (annotations, else controller-wide, else defaults).
    pub ingress_route: Option<super::IngressRouteFn>,
    /// Its in-cluster proxy's client keep-alive default (milliseconds, what to call it).
    pub client_keepalive: Option<(u64, &'static str, &'static str)>,
}

impl Product {
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

    /// What kubegap knows about the product (its file in `controllers/`).
    pub fn spec(self) -> &'static Spec {
        match self {
            Product::IngressNginx => &super::ingress_nginx::SPEC,
            Product::NginxInc => &super::nginx_inc::SPEC,
            Product::HaproxyTech => &super::haproxytech::SPEC,
            Product::HaproxyIngress => &super::haproxy_ingress::SPEC,
            Product::OpenShift => &super::openshift::SPEC,
            Product::AwsAlb => &super::aws_alb::SPEC,
            Product::Gke => &super::gke::SPEC,
        }
    }

    /// The name used in messages.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Annotation prefixes this product reads on Ingresses (or Routes).
    pub fn annotation_prefixes(self) -> &'static [&'static str] {
        self.spec().annotation_prefixes
    }

    /// The product whose prefix an annotation key has.
    pub fn of_annotation(key: &str) -> Option<Product> {
        Product::ALL.into_iter().find(|p| {
            p.annotation_prefixes()
                .iter()
                .any(|prefix| key.starts_with(prefix))
        })
    }

    /// The product of an IngressClass `spec.controller`: exact names first, then prefixes.
    pub fn of_controller_name(controller: &str) -> Option<Product> {
        let all = Product::ALL.into_iter();
        all.clone()
            .find(|p| p.spec().controller_names.contains(&controller))
            .or_else(|| {
                all.clone().find(|p| {
                    p.spec()
                        .controller_name_prefixes
                        .iter()
                        .any(|prefix| controller.starts_with(prefix))
                })
            })
    }

    /// The product of a controller image (`registry.k8s.io/ingress-nginx/controller:v1.15.1`).
    pub fn of_image(image: &str) -> Option<Product> {
        let repo = image_repository(image);
        Product::ALL.into_iter().find(|p| {
            let spec = p.spec();
            spec.image_suffixes.iter().any(|s| repo.ends_with(s))
                || spec.image_contains.iter().any(|s| repo.contains(s))
        })
    }

    /// Well-known class names that name one product only (`alb`, `gce`, `openshift-default`).
    /// `nginx` and `haproxy` are shared by several products and resolve through an
    /// IngressClass or a controller in the input; without either, `nginx` is ingress-nginx
    /// (see `bind_ingress`).
    pub fn of_class_name(class: &str) -> Option<Product> {
        Product::ALL
            .into_iter()
            .find(|p| p.spec().class_names.contains(&class))
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every product's spec answers for it: its annotation prefixes, class names, controller
    /// names and images resolve back to it, and no two products share a name.
    #[test]
    fn specs_resolve_back_to_their_product() {
        let mut names: Vec<&str> = Product::ALL.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Product::ALL.len());
        for p in Product::ALL {
            let spec = p.spec();
            for prefix in spec.annotation_prefixes {
                assert_eq!(Product::of_annotation(&format!("{prefix}x")), Some(p));
            }
            for class in spec.class_names {
                assert_eq!(Product::of_class_name(class), Some(p));
            }
            for name in spec.controller_names {
                assert_eq!(Product::of_controller_name(name), Some(p));
            }
            for suffix in spec.image_suffixes {
                assert_eq!(
                    Product::of_image(&format!("registry.example/{suffix}:1.0")),
                    Some(p)
                );
            }
        }
        assert_eq!(
            Product::of_controller_name("haproxy.org/ingress-controller/haproxy"),
            Some(Product::HaproxyTech)
        );
        assert_eq!(Product::of_image("docker.io/library/traefik:v3"), None);
    }
}
