//! Name, company and phone material per country for the seed generator. Names in non-Latin
//! scripts carry a romanisation after `|` (used for e-mail addresses and Latin-script variants).

/// What the generator needs to make a plausible person or company of one country.
pub struct Locale {
    pub country: &'static str,
    /// BCP 47 tag of the usual language.
    pub language: &'static str,
    pub timezone: &'static str,
    /// `native|romanised`, or just the name when it is written in Latin script.
    pub first_names: &'static [&'static str],
    pub last_names: &'static [&'static str],
    /// `#` is a random digit; every format carries an international prefix (`+` or `00`).
    pub phone_formats: &'static [&'static str],
    pub email_domains: &'static [&'static str],
    /// `{last}` is a family name, `{word}` an industry word, `{city}` a city.
    pub company_formats: &'static [&'static str],
    pub company_words: &'static [&'static str],
    pub cities: &'static [&'static str],
    pub currency: &'static str,
}

#[rustfmt::skip]
pub const LOCALES: &[Locale] = &[
    Locale {
        country: "DE",
        language: "de",
        timezone: "Europe/Berlin",
        first_names: &["Jürgen", "Anna", "Lukas", "Sophie", "Maximilian", "Jörg", "Lena", "Björn", "Käthe", "Felix", "Mia", "Günther", "Hannah", "Matthias", "Zoë"],
        last_names: &["Müller", "Schmidt", "Schneider", "Fischer", "Weiß", "Becker", "Schäfer", "Hoffmann", "Koch", "Groß", "Wagner", "Bäcker", "Krüger", "Lehmann", "Zimmermann"],
        phone_formats: &["+49 30 #######", "+49 89 ########", "0049 40 ########", "+49 (0)151 ########", "+49-221-#######"],
        email_domains: &["web.de", "gmx.de", "t-online.de", "posteo.de"],
        company_formats: &["{last} GmbH", "{last} & Söhne KG", "{word} {city} AG", "{last} {word} GmbH & Co. KG"],
        company_words: &["Maschinenbau", "Logistik", "Bauwerk", "Energietechnik", "Feinkost", "Software"],
        cities: &["Berlin", "München", "Hamburg", "Köln", "Düsseldorf", "Leipzig"],
        currency: "EUR",
    },
    Locale {
        country: "JP",
        language: "ja",
        timezone: "Asia/Tokyo",
        first_names: &["結衣|Yui", "陽翔|Haruto", "さくら|Sakura", "蓮|Ren", "美咲|Misaki", "大輝|Daiki", "葵|Aoi", "翔太|Shota", "花子|Hanako", "健一|Kenichi", "由美|Yumi", "拓也|Takuya"],
        last_names: &["佐藤|Sato", "鈴木|Suzuki", "高橋|Takahashi", "田中|Tanaka", "伊藤|Ito", "渡辺|Watanabe", "山本|Yamamoto", "中村|Nakamura", "小林|Kobayashi", "加藤|Kato", "吉田|Yoshida", "山田|Yamada"],
        phone_formats: &["+81 3-####-####", "+81 90-####-####", "+81 6 #### ####", "0081 80 #### ####", "+81-45-###-####"],
        email_domains: &["docomo.ne.jp", "yahoo.co.jp", "gmail.com", "nifty.com"],
        company_formats: &["株式会社{last}{word}", "{last}{word}株式会社", "{city} {word} K.K."],
        company_words: &["製作所", "商事", "電機", "物産", "工業", "システムズ"],
        cities: &["Tokyo", "Osaka", "Nagoya", "Fukuoka", "Sapporo"],
        currency: "JPY",
    },
    Locale {
        country: "SA",
        language: "ar",
        timezone: "Asia/Riyadh",
        first_names: &["محمد|Mohammed", "فاطمة|Fatima", "أحمد|Ahmed", "نورة|Noura", "عبدالله|Abdullah", "مريم|Maryam", "خالد|Khalid", "سارة|Sara", "يوسف|Youssef", "ليلى|Layla", "عمر|Omar", "هند|Hind"],
        last_names: &["العتيبي|Al-Otaibi", "القحطاني|Al-Qahtani", "الغامدي|Al-Ghamdi", "الزهراني|Al-Zahrani", "الحربي|Al-Harbi", "الشمري|Al-Shammari", "المطيري|Al-Mutairi", "الدوسري|Al-Dosari", "حداد|Haddad", "منصور|Mansour"],
        phone_formats: &["+966 50 ### ####", "+966 11 ### ####", "00966 55 ### ####", "+971 4 ### ####", "+20 10 #### ####"],
        email_domains: &["gmail.com", "outlook.sa", "hotmail.com", "yahoo.com"],
        company_formats: &["{last} {word} Co.", "شركة {last} للتجارة", "{city} {word} Est."],
        company_words: &["Trading", "Contracting", "Petrochemicals", "Logistics", "Foods"],
        cities: &["Riyadh", "Jeddah", "Dammam", "Dubai", "Cairo"],
        currency: "SAR",
    },
    Locale {
        country: "BR",
        language: "pt-BR",
        timezone: "America/Sao_Paulo",
        first_names: &["João", "Maria", "Luís", "Ana Clara", "Thiago", "Beatriz", "Gonçalo", "Letícia", "Otávio", "Júlia", "Caio", "Lívia", "Antônio", "Débora"],
        last_names: &["Silva", "Santos", "Oliveira", "Souza", "Conceição", "Pereira", "Araújo", "Gonçalves", "Ribeiro", "Magalhães", "Assunção", "Lima", "Carvalho"],
        phone_formats: &["+55 11 9####-####", "+55 (21) ####-####", "+55 31 9 ####-####", "0055 51 ####-####"],
        email_domains: &["uol.com.br", "gmail.com", "terra.com.br", "bol.com.br"],
        company_formats: &["{last} & Filhos Ltda.", "{word} {city} S.A.", "{last} {word} Ltda."],
        company_words: &["Tecnologia", "Alimentos", "Construções", "Transportes", "Agronegócio"],
        cities: &["São Paulo", "Rio de Janeiro", "Belo Horizonte", "Porto Alegre", "Curitiba"],
        currency: "BRL",
    },
    Locale {
        country: "IN",
        language: "en-IN",
        timezone: "Asia/Kolkata",
        first_names: &["Aarav", "Priya", "Vihaan", "Ananya", "Arjun", "Diya", "Rohan", "Kavya", "Sai", "Ishaan", "अनिल|Anil", "सुनीता|Sunita", "Lakshmi", "Venkatesh"],
        last_names: &["Sharma", "Patel", "Reddy", "Iyer", "Gupta", "Nair", "Singh", "Chatterjee", "Mukherjee", "Krishnamurthy", "वर्मा|Verma", "Desai", "Menon"],
        phone_formats: &["+91 98### #####", "+91-22-####-####", "+91 80 #### ####", "0091 99### #####"],
        email_domains: &["gmail.com", "rediffmail.com", "yahoo.co.in", "outlook.in"],
        company_formats: &["{last} {word} Pvt. Ltd.", "{city} {word} Ltd.", "{last} & Sons"],
        company_words: &["Infotech", "Textiles", "Pharma", "Engineering", "Exports"],
        cities: &["Mumbai", "Bengaluru", "Chennai", "Pune", "Hyderabad", "Kolkata"],
        currency: "INR",
    },
    Locale {
        country: "NG",
        language: "en-NG",
        timezone: "Africa/Lagos",
        first_names: &["Chinedu", "Ngozi", "Oluwaseun", "Adaeze", "Emeka", "Funmilayo", "Ifeanyi", "Chiamaka", "Babatunde", "Yetunde", "Tobi", "Amaka", "Ọlá"],
        last_names: &["Okafor", "Adeyemi", "Okonkwo", "Balogun", "Eze", "Nwosu", "Adebayo", "Obi", "Ogunleye", "Ibrahim", "Oyelaran", "Ọlátúnjí"],
        phone_formats: &["+234 803 ### ####", "+234 (0)1 ### ####", "+234 81 #### ####", "00234 706 ### ####"],
        email_domains: &["gmail.com", "yahoo.com", "outlook.com"],
        company_formats: &["{last} Holdings Ltd", "{word} {city} Ltd", "{last} & Partners"],
        company_words: &["Agro", "Energy", "Telecoms", "Logistics", "Foods"],
        cities: &["Lagos", "Abuja", "Ibadan", "Port Harcourt", "Kano"],
        currency: "NGN",
    },
    Locale {
        country: "PL",
        language: "pl",
        timezone: "Europe/Warsaw",
        first_names: &["Łukasz", "Agnieszka", "Paweł", "Małgorzata", "Krzysztof", "Zofia", "Wojciech", "Katarzyna", "Michał", "Żaneta", "Grzegorz", "Joanna"],
        last_names: &["Nowak", "Kowalski", "Wiśniewski", "Wójcik", "Kamińska", "Lewandowski", "Zieliński", "Szymańska", "Woźniak", "Dąbrowski", "Kozłowski", "Jankowska"],
        phone_formats: &["+48 601 ### ###", "+48 22 ### ## ##", "0048 512 ### ###", "+48-71-###-##-##"],
        email_domains: &["wp.pl", "onet.pl", "interia.pl", "o2.pl"],
        company_formats: &["{last} Sp. z o.o.", "{word} {city} S.A.", "Zakład {word} {last}"],
        company_words: &["Budownictwo", "Meble", "Transport", "Informatyka", "Stal"],
        cities: &["Warszawa", "Kraków", "Łódź", "Wrocław", "Gdańsk", "Poznań"],
        currency: "PLN",
    },
    Locale {
        country: "CN",
        language: "zh-CN",
        timezone: "Asia/Shanghai",
        first_names: &["伟|Wei", "芳|Fang", "娜|Na", "敏|Min", "静|Jing", "磊|Lei", "洋|Yang", "艳|Yan", "勇|Yong", "杰|Jie", "秀英|Xiuying", "志强|Zhiqiang"],
        last_names: &["王|Wang", "李|Li", "张|Zhang", "刘|Liu", "陈|Chen", "杨|Yang", "黄|Huang", "赵|Zhao", "吴|Wu", "周|Zhou", "徐|Xu", "孙|Sun"],
        phone_formats: &["+86 138 #### ####", "+86 10 #### ####", "0086 21 #### ####", "+86-755-####-####", "+852 #### ####"],
        email_domains: &["qq.com", "163.com", "126.com", "sina.com"],
        company_formats: &["{city}{word}有限公司", "{last}氏{word}集团", "{city} {word} Co., Ltd."],
        company_words: &["科技", "贸易", "电子", "制造", "物流"],
        cities: &["上海", "北京", "深圳", "广州", "杭州"],
        currency: "CNY",
    },
    Locale {
        country: "FR",
        language: "fr",
        timezone: "Europe/Paris",
        first_names: &["Élodie", "François", "Chloé", "Jérôme", "Amélie", "Hélène", "Théo", "Inès", "Gaël", "Margaux", "Noël", "Camille", "Anaïs"],
        last_names: &["Martin", "Bernard", "Dubois", "Lefèvre", "Leroy", "Moreau", "Girard", "Bonnet", "Rousseau", "Fontaine", "Chevalier", "Lemaître"],
        phone_formats: &["+33 1 ## ## ## ##", "+33 6 ## ## ## ##", "0033 4 ## ## ## ##", "+33 (0)7 ## ## ## ##"],
        email_domains: &["orange.fr", "free.fr", "laposte.net", "sfr.fr"],
        company_formats: &["{last} et Fils SARL", "{word} de {city} SAS", "Établissements {last}"],
        company_words: &["Boulangerie", "Conseil", "Transports", "Vins", "Informatique"],
        cities: &["Paris", "Lyon", "Marseille", "Toulouse", "Bordeaux", "Lille"],
        currency: "EUR",
    },
    Locale {
        country: "ES",
        language: "es",
        timezone: "Europe/Madrid",
        first_names: &["José", "María José", "Iñaki", "Lucía", "Álvaro", "Begoña", "Sofía", "Martín", "Núria", "Jesús", "Ainhoa", "Rocío"],
        last_names: &["García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez", "Pérez", "Muñoz", "Jiménez", "Ibáñez", "Ortega"],
        phone_formats: &["+34 612 ### ###", "+34 91 ### ## ##", "0034 93 ### ## ##", "+34-655-##-##-##"],
        email_domains: &["telefonica.net", "gmail.com", "hotmail.es", "yahoo.es"],
        company_formats: &["{last} y Asociados S.L.", "{word} {city} S.A.", "Grupo {last}"],
        company_words: &["Construcciones", "Vinos", "Energía", "Turismo", "Textil"],
        cities: &["Madrid", "Barcelona", "Valencia", "Sevilla", "Bilbao", "Málaga"],
        currency: "EUR",
    },
    Locale {
        country: "TR",
        language: "tr",
        timezone: "Europe/Istanbul",
        first_names: &[
            "Mehmet", "Ayşe", "Mustafa", "Fatma", "Emre", "Zeynep", "Çağrı", "Gülşen", "İbrahim",
            "Şebnem", "Oğuz", "Elif",
        ],
        last_names: &[
            "Yılmaz", "Kaya", "Demir", "Şahin", "Çelik", "Yıldız", "Öztürk", "Aydın", "Özdemir",
            "Arslan", "Doğan", "Kılıç",
        ],
        phone_formats: &["+90 532 ### ## ##", "+90 212 ### ## ##", "0090 216 ### ## ##", "+90 (505) ### ####"],
        email_domains: &["gmail.com", "hotmail.com.tr", "yandex.com.tr", "mynet.com"],
        company_formats: &["{last} {word} A.Ş.", "{city} {word} Ltd. Şti.", "{last} Holding"],
        company_words: &["Tekstil", "İnşaat", "Gıda", "Otomotiv", "Yazılım"],
        cities: &["İstanbul", "Ankara", "İzmir", "Bursa", "Antalya"],
        currency: "TRY",
    },
    Locale {
        country: "US",
        language: "en-US",
        timezone: "America/New_York",
        first_names: &["James", "Olivia", "Michael", "Emma", "DeShawn", "Ava", "Christopher", "Mia", "Tyler", "Madison", "José Luis", "Kayla", "Ethan"],
        last_names: &["Smith", "Johnson", "Williams", "Brown", "O'Brien", "Miller", "Davis", "García-Lopez", "Washington", "Nguyen", "McAllister", "Anderson"],
        phone_formats: &["+1 (415) 555-####", "+1-212-555-####", "+1 646 555 ####", "001 312 555 ####"],
        email_domains: &["gmail.com", "outlook.com", "icloud.com", "yahoo.com"],
        company_formats: &["{last} & Associates LLC", "{word} of {city} Inc.", "{last} {word} Corp."],
        company_words: &["Analytics", "Healthcare", "Robotics", "Capital", "Outfitters"],
        cities: &[
            "Austin", "Chicago", "Denver", "Seattle", "Boston", "Atlanta",
        ],
        currency: "USD",
    },
    Locale {
        country: "KR",
        language: "ko",
        timezone: "Asia/Seoul",
        first_names: &["민준|Minjun", "서연|Seoyeon", "지호|Jiho", "하은|Haeun", "도윤|Doyun", "지우|Jiwoo", "현우|Hyunwoo", "수빈|Subin"],
        last_names: &[
            "김|Kim", "이|Lee", "박|Park", "최|Choi", "정|Jung", "강|Kang", "조|Cho", "윤|Yoon",
        ],
        phone_formats: &["+82 10-####-####", "+82 2-###-####", "0082 31 #### ####"],
        email_domains: &["naver.com", "daum.net", "kakao.com", "gmail.com"],
        company_formats: &["{last}{word} 주식회사", "{city} {word} Co., Ltd."],
        company_words: &["전자", "건설", "제약", "물산"],
        cities: &["Seoul", "Busan", "Incheon", "Daegu"],
        currency: "KRW",
    },
];

/// The native spelling of a `native|romanised` entry.
pub fn native(entry: &str) -> &str {
    entry.split_once('|').map_or(entry, |(n, _)| n)
}

/// The Latin spelling of an entry (the romanisation when one is given).
pub fn latin(entry: &str) -> &str {
    entry.split_once('|').map_or(entry, |(_, r)| r)
}

/// Lower-case ASCII for an e-mail local part: accents folded, everything else dropped.
pub fn ascii_slug(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let folded: &str = match c {
            'ä' | 'Ä' | 'æ' => "ae",
            'ö' | 'Ö' | 'ø' => "oe",
            'ü' | 'Ü' => "ue",
            'ß' => "ss",
            'á' | 'à' | 'â' | 'ã' | 'ą' | 'Á' | 'Â' => "a",
            'é' | 'è' | 'ê' | 'ë' | 'ę' | 'É' | 'È' => "e",
            'í' | 'ì' | 'î' | 'ï' | 'ı' | 'İ' | 'Í' => "i",
            'ó' | 'ò' | 'ô' | 'õ' | 'ọ' | 'Ó' | 'Ọ' => "o",
            'ú' | 'ù' | 'û' | 'Ú' => "u",
            'ç' | 'ć' | 'Ç' | 'Č' | 'č' => "c",
            'ñ' | 'ń' | 'Ñ' => "n",
            'ł' | 'Ł' => "l",
            'ś' | 'ş' | 'Ş' | 'Ś' | 'š' => "s",
            'ź' | 'ż' | 'Ż' | 'Ź' | 'ž' => "z",
            'ğ' | 'Ğ' => "g",
            _ if c.is_ascii_alphanumeric() => {
                out.push(c.to_ascii_lowercase());
                continue;
            }
            _ => "",
        };
        out.push_str(folded);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_fold_accents() {
        assert_eq!(ascii_slug("Jürgen"), "juergen");
        assert_eq!(ascii_slug("Łukasz"), "lukasz");
        assert_eq!(ascii_slug("O'Brien"), "obrien");
        assert_eq!(latin("佐藤|Sato"), "Sato");
        assert_eq!(native("佐藤|Sato"), "佐藤");
        assert_eq!(native("Müller"), "Müller");
    }
}
