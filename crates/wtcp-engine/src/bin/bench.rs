fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).unwrap();
    let ov: Vec<(String, String)> = args[1..].iter().map(|a| { let (k, v) = a.split_once('=').unwrap(); (k.to_string(), v.to_string()) }).collect();
    let sc = wtcp_engine::Scenario::from_toml_str(&text, &ov).unwrap();
    let r = wtcp_engine::run(&sc);
    println!("{}", r.to_json());
}
